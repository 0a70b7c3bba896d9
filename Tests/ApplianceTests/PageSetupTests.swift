import Config
import Glibc
import Logging
import StatusServer
import SystemSupport
import TestSupport
import Testing

@testable import Appliance

/// Adding an address book as the page does it, for a folder on the box (no server needed: the CardDAV path runs end
/// to end against Radicale in `PageSetupCommandTests`): each step on its own thread, the page asking until it ends.
@Suite("Adding an address book from the page")
struct PageSetupTests {
    let directory: TemporaryDirectory
    let configPath: String
    let saves = SaveCount()
    let setup: PageSetup

    init() throws {
        directory = try TemporaryDirectory()
        configPath = directory.file("contactbox.toml")
        mkdir(directory.file("usb"), 0o700)
        try SmallFile.replace(
            configPath, with: Array("store = \"\(directory.file("contacts.sqlite"))\"\n".utf8), mode: 0o644)
        let saves = saves
        setup = PageSetup(
            configPath: configPath, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, userAgent: "test"
        ) { saves.saved([]) }
    }

    /// The state once the running step has ended (10 s at most).
    func settled() throws -> SetupView {
        for _ in 0..<500 {
            guard case .view(let view) = setup.answer(.read) else { throw ApplianceError("no view") }
            if !view.phase.isRunning { return view }
            usleep(20_000)
        }
        throw ApplianceError("the step did not end")
    }

    @Test("find the folder, add it: saved in the settings file, and the daemon asked to reload")
    func folder() throws {
        guard case .view(let idle) = setup.answer(.read) else { throw ApplianceError("no view") }
        #expect(idle.phase == .idle)
        #expect(
            idle.providers.map(\.id) == ["icloud", "google", "fastmail", "nextcloud", "carddav", "oauth", "folder"])
        _ = setup.answer(.find(["provider": "folder", "address": directory.file("usb")]))
        let found = try settled()
        #expect(found.phase == .found, "\(found.message ?? "")")
        #expect(found.books.map(\.url) == [directory.file("usb")])
        _ = setup.answer(.add(["books": directory.file("usb")]))
        let added = try settled()
        #expect(added.phase == .added, "\(added.message ?? "")")
        #expect(added.added == ["usb"])
        #expect(saves.count.withLock { $0 } == 1)
        let configuration = try #require(Configuration.checked(path: configPath).configuration)
        #expect(configuration.remotes.map(\.name) == ["usb"])
    }

    @Test("refused in words: no provider, no login, a folder that is not there, an add before a find")
    func refused() throws {
        #expect(setup.answer(.find([:])) == .refused(status: 400, message: "Choose where the address book is."))
        #expect(
            setup.answer(.find(["provider": "icloud", "username": "ann@icloud.com"]))
                == .refused(status: 400, message: "Give the user name and the app password."))
        #expect(setup.answer(.add(["books": "/x"])) == .refused(status: 409, message: "Find the address books first."))
        _ = setup.answer(.find(["provider": "folder", "address": directory.file("nowhere")]))
        let failed = try settled()
        #expect(failed.phase == .failed)
        #expect(failed.message?.isEmpty == false)
        #expect(saves.count.withLock { $0 } == 0)
        _ = setup.answer(.cancel)
        #expect(try settled().phase == .idle)
    }
}
