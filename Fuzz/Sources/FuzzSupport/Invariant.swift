import Glibc

/// Like `precondition`, but the message is printed in a release build too (where `precondition` traps silently): it
/// is what tells one fuzzing failure from another. libFuzzer reports the abort as a crash and keeps the input.
public func invariant(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { violated(message()) }
}

public func violated(_ message: String) -> Never {
    let line = Array("invariant violated: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}
