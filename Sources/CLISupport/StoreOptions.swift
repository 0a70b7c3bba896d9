import ArgumentParser
import Config
import ContactStore
import Glibc
import SystemSupport

/// `--db PATH` and `--config PATH`, shared by every subcommand that opens the store: every command finds the store
/// the same way (``path(configuration:)``), so that `import` writes where `sync` reads.
public struct StoreOptions: ParsableArguments {
    public static let installedPath = Configuration.defaultStorePath

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The contact store (default: $CONTACTBOX_DB, else the configuration's store, else \(installedPath)).",
            valueName: "path"))
    public var db: String?

    @OptionGroup public var config: ConfigOptions

    public init() {}

    public init(db: String?) {
        self.db = db
    }

    /// `--db`, else `$CONTACTBOX_DB`: a store named for this command, which no configuration overrides.
    public var explicitPath: String? {
        if let db { return db }
        if let env = getenv("CONTACTBOX_DB"), env.pointee != 0 { return String(cString: env) }
        return nil
    }

    /// The store: `--db`, else `$CONTACTBOX_DB`, else the configuration's `store` (the configuration given, or the
    /// file `--config` or `$CONTACTBOX_CONFIG` names, or the installed one when it exists and is readable), else
    /// ``installedPath``. A configuration file that is named but missing, or whose `store` cannot be read, is exit
    /// 78: its store may be elsewhere, and a command that guessed would write where `sync` never looks.
    public func path(configuration: Configuration? = nil) throws -> String {
        if let explicitPath { return explicitPath }
        if let configuration { return configuration.storePath }
        return try config.storePath() ?? Self.installedPath
    }

    /// Opens the store for a command that only reads it: read-only when the file exists (`ContactStore(readingOnly:)`,
    /// so a store on a read-only mount can be read); a store that does not exist yet is created as by `open()`, so
    /// that a reading command on a fresh box shows an empty store. A failure is one line on stderr and exit 74.
    public func openForReading(configuration: Configuration? = nil) throws -> ContactStore {
        let path = try self.path(configuration: configuration)
        guard access(path, F_OK) == 0 else { return try Self.open(path) }
        do {
            return try ContactStore(readingOnly: path)
        } catch {
            Terminal.error("cannot read the store \(path): \(error)")
            throw Exit.ioError
        }
    }

    /// Opens the store, creating its folder first; a failure is one line on stderr and exit 74.
    public func open(configuration: Configuration? = nil) throws -> ContactStore {
        try Self.open(try path(configuration: configuration))
    }

    /// A store that did not exist is created, and the command says where: a store in an unexpected place is
    /// then seen at once, not after a sync that uploaded nothing.
    static func open(_ path: String) throws -> ContactStore {
        let creating = access(path, F_OK) != 0
        do {
            try FileSystem.makeParentDirectories(of: path)
            let store = try ContactStore(path: path)
            SpoolFile.placeBeside(path)
            if creating { Terminal.notice("created a new store at \(path)") }
            return store
        } catch {
            Terminal.error("cannot open the store \(path): \(error)")
            throw Exit.ioError
        }
    }
}
