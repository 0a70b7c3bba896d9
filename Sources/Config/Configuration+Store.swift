import SystemSupport

extension Configuration {
    /// The store a configuration file names (`store`, else ``defaultStorePath``), read as ``validate(path:)`` reads
    /// it but reading nothing else: the commands that work on the store alone (`import`, `list`) open the one `sync`
    /// opens, whatever the rest of the file says (no remote set up yet, say). Throws when the file cannot be read,
    /// is no TOML, or its `store` is wrong.
    public static func storePath(path: String) throws(ConfigurationError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try SmallFile.read(path, limit: sizeLimit)
        } catch {
            throw ConfigurationError(file: path, message: error.message)
        }
        let root: TOMLTable
        do {
            root = try TOMLParser.parse(bytes, quotableKeys: ConfigurationReader.allKeys)
        } catch {
            throw ConfigurationError(file: path, line: error.line, key: error.key, message: error.message)
        }
        var reader = ConfigurationReader(path: path)
        let store = reader.absolutePath(ConfigurationReader.Block(table: root, context: ""), "store")
        if let first = reader.errors.first { throw first }
        return store ?? defaultStorePath
    }
}
