import Glibc
import SystemSupport
import TestSupport
import Testing

@testable import Config

let configPath = "/etc/contactbox/contactbox.toml"

/// A valid configuration; tests change one line and expect errors on known lines.
let validText = """
    store = "/var/lib/contactbox/contacts.sqlite"

    [sync]
    interval = "15m"
    full_check = "24h"
    max_delete_share = 0.3

    [[remote]]
    name = "icloud"
    kind = "carddav"
    url = "https://contacts.icloud.com/"
    username = "someone@icloud.com"
    password_file = "/etc/contactbox/icloud.password"
    conflict = "newest"
    concurrency = 4

    [[remote]]
    name = "nas"
    kind = "vdir"
    folder = "/mnt/nas/contacts"
    create_folder = false
    """

/// `validText` with one line replaced (the line must be there, or the test is testing nothing).
func makeText(replacing line: String, with replacement: String) -> String {
    precondition(validText.contains(line), "no line \(line) in the fixture")
    return validText.replacing(line, with: replacement)
}

/// Every problem the text has, as a person would read them.
func problems(_ text: String) -> [String] {
    Configuration.validate(text: text, path: configPath).errors.map(\.description)
}

func makeFile(_ path: String, _ text: String, mode: mode_t = 0o600) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
    precondition(fd >= 0, "cannot create \(path)")
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    // open's mode passes through the umask; set it exactly.
    fchmod(fd, mode)
    close(fd)
}

/// The repository's Deploy folder, found from this file's place.
var deployFolder: String { repositoryRoot + "/Deploy" }

/// The repository's board files.
var boardFolder: String { repositoryRoot + "/Board" }

let boardPath = "/usr/share/contactbox/boards/test.toml"

/// A valid board file; tests change one line and expect errors on known lines.
let validBoardText = """
    board = "Test board"
    chip_label = "pinctrl-bcm2711"

    [led.power]
    line = 17
    name = "GPIO17"

    [led.sync]
    line = 27

    [led.error]
    line = 22

    [button.sync]
    line = 23
    active_low = true
    bias = "pull-up"
    """

/// `validBoardText` with one line replaced (the line must be there, or the test is testing nothing).
func makeBoardText(replacing line: String, with replacement: String) -> String {
    precondition(validBoardText.contains(line), "no line \(line) in the board fixture")
    return validBoardText.replacing(line, with: replacement)
}

/// Every problem the board file text has, as a person would read them.
func boardProblems(_ text: String) -> [String] {
    BoardConfiguration.validate(bytes: Array(text.utf8), path: boardPath).errors.map(\.description)
}

/// A file's text; nil when it cannot be read.
func readText(_ path: String) -> String? {
    (try? SmallFile.read(path, limit: 1 << 20)).flatMap { String(validating: $0, as: UTF8.self) }
}
