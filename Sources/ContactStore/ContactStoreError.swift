/// The store's own error: what is wrong with a request or with the database file, in words a person can act on.
///
/// Failures inside SQLite (I/O, a full disk, a busy database) come through unchanged as `SQLiteError`.
public struct ContactStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Code: String, Sendable {
        /// The database was written by a newer ContactBox; opening it could corrupt it.
        case newerSchema = "newer-schema"
        /// The database needs a migration, and was opened only to read.
        case olderSchema = "older-schema"
        /// More records than one chunk (one transaction) may hold.
        case chunkTooLarge = "chunk-too-large"
        /// A limit or argument outside what the API accepts.
        case invalidArgument = "invalid-argument"
        /// A card without a UID where one is required (upsert: identity is the UID).
        case missingUID = "missing-uid"
        /// The contact, history row or run asked for does not exist.
        case notFound = "not-found"
        /// A row whose stored values this version cannot read.
        case corruptRow = "corrupt-row"
        /// The store cannot be written where it is: its file or folder is read-only to this user.
        case readOnly = "read-only"
        /// SQLite's own check found the database file damaged (a page or record that is not what it wrote).
        case damaged
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "contact store: \(message) (\(code.rawValue))" }
}
