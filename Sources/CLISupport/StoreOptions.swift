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
