/// Which board the front panel is wired on: the `[panel]` section.
///
/// ```toml
/// [panel]
/// board = "raspberry-pi-4"
/// ```
public struct PanelSettings: Sendable, Equatable {
    /// No hardware: the panel is drawn in the terminal and on the status page.
    public static let simulatedBoard = "simulated"

    /// A board name, looked up as `<boards folder>/<name>.toml` (see
    /// ``BoardConfiguration/resolve(name:boardsDirectory:)``), an absolute path to a board file, or
    /// ``simulatedBoard``.
    ///
    /// A configuration without `[panel]` gets the simulated panel, so that the demo and the tests run on any
    /// machine; the installed example configuration names the real board.
    public var board: String

    public init(board: String = PanelSettings.simulatedBoard) {
        self.board = board
    }

    /// True when no board file is read and no GPIO is touched.
    public var isSimulated: Bool { board == Self.simulatedBoard }

    /// The board file `board` names, in `boardsDirectory` unless it is a path.
    public func boardPath(boardsDirectory: String = BoardConfiguration.directory()) -> String {
        BoardConfiguration.resolve(name: board, boardsDirectory: boardsDirectory)
    }
}
