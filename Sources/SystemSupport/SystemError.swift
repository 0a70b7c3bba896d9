import Glibc

/// A failed system call, as a person reads it: `strerror(3)`'s words for its errno.
public struct SystemError: Error, Equatable, CustomStringConvertible {
    public var code: Int32

    public init(_ code: Int32) {
        self.code = code
    }

    /// The error of the call that just failed; read it before anything else can change errno.
    public static var last: SystemError { SystemError(errno) }

    public var description: String { Self.text(code) }

    /// "No such file or directory" for ENOENT.
    public static func text(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
