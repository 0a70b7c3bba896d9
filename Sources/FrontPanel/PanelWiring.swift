/// Where the front panel is wired on a real board: the GPIO chip, and the line, active level and bias of each LED
/// and of the button. The appliance fills it from a board file (`Board/*.toml`, read by the Config module), whose
/// path goes into every error so that a person knows which file to fix.
public struct PanelWiring: Sendable, Equatable {
    /// A line by its offset on the chip (the GPIO number on a Raspberry Pi header chip) or by the name the kernel
    /// gives it (`gpioinfo` lists both).
    public enum LineID: Sendable, Equatable, CustomStringConvertible {
        case offset(Int)
        case name(String)

        public var description: String {
            switch self {
            case .offset(let offset): "line \(offset)"
            case .name(let name): "line \"\(name)\""
            }
        }
    }

    /// The line's internal resistor, as libgpiod requests it. `asIs` leaves whatever the firmware set.
    public enum Bias: String, Sendable, Equatable, CaseIterable {
        case asIs = "as-is"
        case disabled
        case pullUp = "pull-up"
        case pullDown = "pull-down"
    }

    public struct Line: Sendable, Equatable {
        public var id: LineID
        /// True when the part is "on" at a low level: an LED wired from 3.3 V to the GPIO, or a button to ground.
        public var activeLow: Bool
        public var bias: Bias

        public init(id: LineID, activeLow: Bool = false, bias: Bias = .asIs) {
            self.id = id
            self.activeLow = activeLow
            self.bias = bias
        }
    }

    /// A chip's path (`/dev/gpiochip0`), name (`gpiochip0`) or label (`pinctrl-bcm2711`). Boards name it by label:
    /// the numbers change with the kernel and the order drivers load in, the label does not.
    public var chip: String
    public var power: Line
    public var sync: Line
    public var error: Line
    public var button: Line
    /// The board file this wiring came from, named in every error.
    public var source: String

    public init(chip: String, power: Line, sync: Line, error: Line, button: Line, source: String) {
        self.chip = chip
        self.power = power
        self.sync = sync
        self.error = error
        self.button = button
        self.source = source
    }
}
