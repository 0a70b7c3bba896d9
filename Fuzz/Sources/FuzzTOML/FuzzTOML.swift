import Config
import FuzzSupport
import Glibc

/// One input: the bytes of a configuration file and of a board file, read the way `contactbox check-config` and the
/// daemon read them: from a file (so that bytes that are not UTF-8 reach the parser's own check, which
/// `validate(text:)` never sees), parsed as TOML, then read as settings.
///
/// Invariant: a configuration comes back exactly when there are no errors, and a board only when there are none (an
/// empty board file has neither), as `validate` promises. Read as the settings file the status page writes, the
/// same: settings exactly when there are no errors; and settings written back (`settingsText`) read back equal.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTOML(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let file = scratchFile else { return 0 }
    guard ftruncate(file.descriptor, 0) == 0, pwrite(file.descriptor, start, count, 0) == count else {
        violated("cannot write the scratch file \(file.path)")
    }
    let configuration = Configuration.validate(path: file.path)
    invariant((configuration.configuration == nil) != configuration.errors.isEmpty, "configuration and errors")
    let board = BoardConfiguration.validate(path: file.path, boardsDirectory: "/nonexistent")
    invariant(board.board == nil || board.errors.isEmpty, "a board with errors")
    // The settings reader takes text; bytes that are not UTF-8 are the configuration's case above.
    guard let text = String(validating: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self) else {
        return 0
    }
    let settingsPath = "/var/lib/contactbox/settings.toml"
    let secrets = "/var/lib/contactbox/secrets"
    let settings = HouseholdConfiguration.validate(text: text, path: settingsPath, secretsDirectory: secrets)
    invariant((settings.household == nil) != settings.errors.isEmpty, "settings and errors")
    if let household = settings.household {
        let again = HouseholdConfiguration.validate(
            text: household.settingsText(), path: settingsPath, secretsDirectory: secrets)
        invariant(again.household == household, "settings written and read back differ")
    }
    return 0
}

/// One file for every input, made on the first one; libFuzzer runs inputs one after another on one thread.
private let scratchFile: (descriptor: Int32, path: String)? = {
    var template = Array("/tmp/contactbox-fuzz-toml-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
    guard descriptor >= 0 else { return nil }
    let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    unlink(path)
    return (descriptor, "/proc/self/fd/\(descriptor)")
}()
