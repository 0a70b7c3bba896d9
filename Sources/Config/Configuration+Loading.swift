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
    /// run: every value (``validate(path:)``), then every password (``secretProblems(path:)``). The configuration is
    /// nil exactly when there are problems: a daemon given problems does not start, or keeps the configuration it
    /// had.
    ///
    /// With `boardsDirectory` (`check-config`), also what the box may lack (``boxProblems(path:boardsDirectory:)``),
    /// which the daemon reports as it runs instead.
    public static func check(
        path: String, boardsDirectory: String? = nil
    ) -> (configuration: Configuration?, errors: [ConfigurationError]) {
        let result = validate(path: path)
        guard let configuration = result.configuration else { return result }
        var problems = configuration.secretProblems(path: path)
        if let boardsDirectory { problems += configuration.boxProblems(path: path, boardsDirectory: boardsDirectory) }
        return problems.isEmpty ? (configuration, []) : (nil, problems)
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
        let root: TOMLTable
        do {
            root = try TOMLParser.parse(bytes, quotableKeys: ConfigurationReader.allKeys)
        } catch {
            // The parser's messages quote keys, never values: a password typed into the file is not echoed back.
            return (nil, [ConfigurationError(file: path, line: error.line, key: error.key, message: error.message)])
        }
        var reader = ConfigurationReader(path: path)
        let configuration = reader.read(root)
        let errors = reader.errors.enumerated().sorted {
            ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset)
        }.map(\.element)
        return errors.isEmpty ? (configuration, []) : (nil, errors)
    }
}
