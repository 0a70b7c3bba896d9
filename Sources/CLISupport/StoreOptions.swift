import ArgumentParser
import ContactStore
import Glibc

/// `--db PATH`, shared by every subcommand that opens the store.
public struct StoreOptions: ParsableArguments {
    public static let installedPath = "/var/lib/contactbox/contacts.sqlite"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The contact store (default: $CONTACTBOX_DB, else \(installedPath)).", valueName: "path"))
    public var db: String?

    public init() {}

    public init(db: String?) {
        self.db = db
    }

    public var path: String {
        if let db { return db }
        if let env = getenv("CONTACTBOX_DB"), env.pointee != 0 { return String(cString: env) }
        return Self.installedPath
    }

    /// Opens the store for a command that only reads it: read-only when the file exists (`ContactStore(readingOnly:)`,
    /// so a store on a read-only mount can be read); a store that does not exist yet is created as by `open()`, so
    /// that a reading command on a fresh box shows an empty store. A failure is one line on stderr and exit 74.
    public func openForReading() throws -> ContactStore {
        let path = self.path
        guard access(path, F_OK) == 0 else { return try open() }
        do {
            return try ContactStore(readingOnly: path)
        } catch {
            Terminal.error("cannot read the store \(path): \(error)")
            throw Exit.ioError
        }
    }

    /// Opens the store, creating its folder first; a failure is one line on stderr and exit 74.
    public func open() throws -> ContactStore {
        let path = self.path
        do {
            try FileSystem.makeParentDirectories(of: path)
            return try ContactStore(path: path)
        } catch {
            Terminal.error("cannot open the store \(path): \(error)")
            throw Exit.ioError
        }
    }
}
