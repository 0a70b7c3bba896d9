import SystemSupport

extension BoardConfiguration {
    /// A board file is a page; a bigger one is a wrong path.
    static let sizeLimit = 64 << 10

    /// Reads and checks a board file; throws its first problem, which names the file, the line and the key.
    ///
    /// A file that is not there is reported with the boards that are: those in `boardsDirectory`.
    public static func load(
        path: String, boardsDirectory: String = BoardConfiguration.directory()
    ) throws(ConfigurationError) -> BoardConfiguration {
        let result = validate(path: path, boardsDirectory: boardsDirectory)
        if let first = result.errors.first { throw first }
        guard let board = result.board else { throw ConfigurationError(file: path, message: "board file is empty") }
        return board
    }

    /// Reads and checks a board file, collecting every problem in the order of their lines (for `check-config`).
    /// The board is nil exactly when there are errors.
    public static func validate(
        path: String, boardsDirectory: String = BoardConfiguration.directory()
    ) -> (board: BoardConfiguration?, errors: [ConfigurationError]) {
        let bytes: [UInt8]
        do {
            bytes = try SmallFile.read(path, limit: sizeLimit)
        } catch {
            guard !SmallFile.exists(path) else {
                return (nil, [ConfigurationError(file: path, message: error.message)])
            }
            return (nil, [ConfigurationError(file: path, message: notFound(path, boardsDirectory: boardsDirectory))])
        }
        return validate(bytes: bytes, path: path)
    }

    /// Checks board file text; `path` names it in errors.
    static func validate(bytes: [UInt8], path: String) -> (board: BoardConfiguration?, errors: [ConfigurationError]) {
        let root: TOMLTable
        do {
            root = try TOMLParser.parse(bytes, quotableKeys: ConfigurationReader.allBoardKeys)
        } catch {
            return (nil, [ConfigurationError(file: path, line: error.line, key: error.key, message: error.message)])
        }
        var reader = ConfigurationReader(path: path)
        let board = reader.readBoard(root)
        let errors = reader.errors.enumerated().sorted {
            ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset)
        }.map(\.element)
        return errors.isEmpty ? (board, []) : (nil, errors)
    }

    /// `board file not found (boards are in /usr/share/contactbox/boards: raspberry-pi-3, raspberry-pi-4, ...)`,
    /// with the board the name most likely meant.
    private static func notFound(_ path: String, boardsDirectory: String) -> String {
        let names = available(in: boardsDirectory)
        guard !names.isEmpty else {
            return "board file not found, and there are no boards in \(boardsDirectory) (CONTACTBOX_BOARDS names "
                + "another folder of board files)"
        }
        var message = "board file not found (boards are in \(boardsDirectory): \(names.joined(separator: ", "))"
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let asked = file.hasSuffix(".toml") ? String(file.dropLast(5)) : file
        if let guess = ConfigurationReader.nearest(to: asked, in: names) { message += "; did you mean \(guess)?" }
        return message + ")"
    }
}
