import Glibc

/// Where the front panel is wired on one kind of board: a board file such as `Board/raspberry-pi-4.toml`.
///
/// ```toml
/// board = "Raspberry Pi 4 Model B"
/// chip_label = "pinctrl-bcm2711"
///
/// [led.power]
/// line = 17            # the GPIO number: the line's offset on the chip
/// name = "GPIO17"      # the kernel's name for it, as gpioinfo shows it
///
/// [button.sync]
/// line = 23
/// name = "GPIO23"
/// active_low = true
/// bias = "pull-up"
/// ```
///
/// The values are plain: the appliance turns them into the front panel's wiring. `Board/README.md` explains each
/// key for people adding a board.
public struct BoardConfiguration: Sendable, Equatable {
    /// A line by its offset on the chip (on a Raspberry Pi header chip, the GPIO number) or by its name.
    public enum LineID: Sendable, Equatable {
        case offset(Int)
        case name(String)
    }

    public struct Line: Sendable, Equatable {
        /// How the line is found: `line = 17` or `line = "LED_SYNC"`.
        public var id: LineID
        /// The kernel's name for a numbered line (`name = "GPIO17"`), for people and messages. The number decides:
        /// names differ between kernels and overlays, a header pin's GPIO number does not.
        public var name: String?
        /// Lit, or pressed, at a low level. Default false for the LEDs and true for the button (wired to ground).
        public var activeLow: Bool
        /// One of ``BoardConfiguration/biasValues``; default `"as-is"`.
        public var bias: String

        public init(id: LineID, name: String? = nil, activeLow: Bool = false, bias: String = "as-is") {
            self.id = id
            self.name = name
            self.activeLow = activeLow
            self.bias = bias
        }
    }

    /// The words `bias` may be, as libgpiod's request flags name them: no flag, `BIAS_DISABLE`, `BIAS_PULL_UP`,
    /// `BIAS_PULL_DOWN`.
    public static let biasValues = ["as-is", "disabled", "pull-up", "pull-down"]
    /// Where the package installs the board files.
    public static let installedDirectory = "/usr/share/contactbox/boards"
    /// The chip label of a board without hardware (`Board/simulated.toml`).
    public static let simulatedChipLabel = "simulated"

    /// The board's name for people: `Raspberry Pi 4 Model B`.
    public var title: String
    /// The GPIO chip's label, as `gpiodetect` shows it in brackets.
    public var chipLabel: String
    public var power: Line
    public var sync: Line
    public var error: Line
    public var button: Line

    public init(title: String, chipLabel: String, power: Line, sync: Line, error: Line, button: Line) {
        self.title = title
        self.chipLabel = chipLabel
        self.power = power
        self.sync = sync
        self.error = error
        self.button = button
    }

    /// A board without hardware: the daemon uses the simulated panel.
    public var isSimulated: Bool { chipLabel == Self.simulatedChipLabel }

    /// The folder board names are looked up in: `$CONTACTBOX_BOARDS` (the repository's `Board/` in the demo and
    /// the tests), else ``installedDirectory``.
    public static func directory() -> String {
        if let env = getenv("CONTACTBOX_BOARDS"), env.pointee != 0 { return String(cString: env) }
        return installedDirectory
    }

    /// The file a `board` setting names: a path as it is, a name as `<boardsDirectory>/<name>.toml`.
    public static func resolve(name: String, boardsDirectory: String) -> String {
        if name.contains("/") { return name }
        let folder = boardsDirectory.hasSuffix("/") ? String(boardsDirectory.dropLast()) : boardsDirectory
        return folder + "/" + name + (name.hasSuffix(".toml") ? "" : ".toml")
    }

    /// The names of the boards in a folder (its `.toml` files without the extension), sorted.
    public static func available(in directory: String) -> [String] {
        guard let folder = opendir(directory) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".toml"), !name.hasPrefix(".") { names.append(String(name.dropLast(5))) }
        }
        return names.sorted()
    }
}
