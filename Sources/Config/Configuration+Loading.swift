import SystemSupport

extension Configuration {
    /// Configuration files are a page or two; a bigger one is a wrong path.
    static let sizeLimit = 1 << 20

    /// Reads and validates the configuration file; throws the first problem (``validate(path:)`` lists them all).
    public static func load(path: String) throws(ConfigurationError) -> Configuration {
        let result = validate(path: path)
        if let first = result.errors.first { throw first }
        return result.configuration!
    }

    /// The one check of the configuration that `check-config`, the daemon's start and its reload on SIGHUP all
    /// run: every value (``validate(path:)``), then every password (``secretProblems(path:)``), then the settings
    /// file merged in. The configuration is nil exactly when there are problems in the administrator's file: a
    /// daemon given problems does not start, or keeps the configuration it had. The settings file's problems are
    /// in ``checked(path:boardsDirectory:readingSecrets:)``, which says where each setting comes from too.
    ///
    /// With `boardsDirectory` (`check-config`), also what the box may lack (``boxProblems(path:boardsDirectory:)``),
    /// which the daemon reports as it runs instead.
    public static func check(
        path: String, boardsDirectory: String? = nil
    ) -> (configuration: Configuration?, errors: [ConfigurationError]) {
        // The settings file is merged in, and its problems left out: they never keep the box from starting
        // (``checked(path:boardsDirectory:readingSecrets:)`` has them).
        let result = checked(path: path, boardsDirectory: boardsDirectory)
        return (result.configuration, result.errors)
    }

    /// Validates configuration text; `path` names it in errors. Throws the first problem.
    public static func parse(text: String, path: String) throws(ConfigurationError) -> Configuration {
        let result = validate(text: text, path: path)
        if let first = result.errors.first { throw first }
        return result.configuration!
    }

    /// Reads and validates the configuration file, collecting every problem (for `contactbox check-config`).
    /// The configuration is nil exactly when there are errors.
    public static func validate(path: String) -> (configuration: Configuration?, errors: [ConfigurationError]) {
        let bytes: [UInt8]
        do {
            bytes = try SmallFile.read(path, limit: sizeLimit)
        } catch {
            return (nil, [ConfigurationError(file: path, message: error.message)])
        }
        // Not UTF-8 is a syntax error, with its line.
        return validate(bytes: bytes, path: path)
    }

    /// Validates configuration text, collecting every problem in the order of their lines.
    public static func validate(
        text: String, path: String
    ) -> (configuration: Configuration?, errors: [ConfigurationError]) {
        validate(bytes: Array(text.utf8), path: path)
    }

    private static func validate(
        bytes: [UInt8], path: String
    ) -> (configuration: Configuration?, errors: [ConfigurationError]) {
        let result = read(bytes: bytes, path: path, role: .administrator)
        return (result.configuration, result.errors)
    }

    /// One file through the one parser and reader, in either role; `lines` says where each setting the page may
    /// change is written, `root` what the file holds (to tell a value set from a default).
    static func read(
        bytes: [UInt8], path: String, role: ConfigurationReader.Role
    ) -> (configuration: Configuration?, errors: [ConfigurationError], lines: [SettingKey: Int], root: TOMLTable) {
        let root: TOMLTable
        do {
            root = try TOMLParser.parse(bytes, quotableKeys: ConfigurationReader.allKeys)
        } catch {
            // The parser's messages quote keys, never values: a password typed into the file is not echoed back.
            let problem = ConfigurationError(file: path, line: error.line, key: error.key, message: error.message)
            return (nil, [problem], [:], TOMLTable())
        }
        var reader = ConfigurationReader(path: path, role: role)
        let configuration = reader.read(root)
        let errors = reader.errors.enumerated().sorted {
            ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset)
        }.map(\.element)
        return (errors.isEmpty ? configuration : nil, errors, reader.lines, root)
    }
}
