/// A value SQLite stores: its five storage classes.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    /// Text given as its UTF-8 bytes, bound as TEXT: for text built as bytes (a serialised card), which would
    /// otherwise be checked as UTF-8 once more only to make a String.
    case utf8Text([UInt8])
}

/// A Swift value that can be bound to a `?` placeholder.
///
/// Arguments are passed as `(any SQLBindable)?`, so a literal `nil` or an optional binds NULL.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}

extension Int64: SQLBindable {
    public var sqlValue: SQLValue { .integer(self) }
}

extension Int: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int32: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Double: SQLBindable {
    public var sqlValue: SQLValue { .real(self) }
}

extension Bool: SQLBindable {
    // SQLite has no boolean type; 0 and 1 are what its own `TRUE` and `FALSE` keywords mean.
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
}

extension String: SQLBindable {
    public var sqlValue: SQLValue { .text(self) }
}

extension Substring: SQLBindable {
    public var sqlValue: SQLValue { .text(String(self)) }
}

extension Array: SQLBindable where Element == UInt8 {
    public var sqlValue: SQLValue { .blob(self) }
}
