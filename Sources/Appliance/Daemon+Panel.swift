import Config
import FrontPanel

extension Daemon {
    /// The panel the configuration names: the simulated one (drawn in the terminal when there is one in the
    /// foreground), or the board file's GPIO lines. A board that cannot be opened leaves the daemon without LEDs and
    /// button, but syncing and serving the status page (the problem goes to the log and the page).
    static func openPanel(_ settings: PanelSettings) -> (hardware: PanelHardware?, problem: String?) {
        if settings.isSimulated { return (simulatedPanel(), nil) }
        let path = settings.boardPath()
        do {
            let board = try BoardConfiguration.load(path: path)
            if board.isSimulated { return (simulatedPanel(), nil) }
            return (try GPIOPanel(wiring(board, path: path)), nil)
        } catch let error as ConfigurationError {
            return (nil, error.description)
        } catch {
            return (nil, "\(error)")
        }
    }

    private static func simulatedPanel() -> PanelHardware {
        TerminalPanel.isAvailable ? TerminalPanel() : SimulatedPanel()
    }

    static func wiring(_ board: BoardConfiguration, path: String) -> PanelWiring {
        func line(_ line: BoardConfiguration.Line) -> PanelWiring.Line {
            let id: PanelWiring.LineID =
                switch line.id {
                case .offset(let offset): .offset(offset)
                case .name(let name): .name(name)
                }
            return PanelWiring.Line(
                id: id, activeLow: line.activeLow, bias: PanelWiring.Bias(rawValue: line.bias) ?? .asIs)
        }
        return PanelWiring(
            chip: board.chipLabel, power: line(board.power), sync: line(board.sync), error: line(board.error),
            button: line(board.button), source: path)
    }
}
