import ContactStore
import Foundation
import SystemSupport
import TestSupport
import Testing
import VCard

/// What `UndoSyncTests.restoreDeletingFortyPercentIsHeld` checks through the library, through the executables a
/// person runs: `contactbox restore --as-of`, then `contactbox sync` holding the deletions (exit 10), then
/// `contactbox sync --confirm-deletions` carrying them out, against a real Radicale and a vCard folder.
@Suite(
    "contactbox restore --as-of and the deletion guard, through the executables", .serialized,
    .enabled(if: TestServerKind.radicale.runs, "\(TestServerKind.radicale.skipNote)"), .timeLimit(.minutes(10)))
struct RestoreCommandSyncTests {
    /// The built `contactbox`, next to the test bundle in the build folder (with `contactbox-remote`, which it
    /// hands `sync` to).
    static let binary: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("contactbox").path
    }()

    /// A store, Radicale and a folder, configured as on the box.
    final class Box {
        let server: RadicaleServer
        let work: TemporaryDirectory
        let db: String
        let nas: String
        let config: String

        init() throws {
            server = try RadicaleServer()
            try server.createAddressBook()
            work = try TemporaryDirectory(prefix: "contactbox-restore")
            db = work.file("contacts.sqlite")
            nas = work.file("nas")
            let password = work.file("radicale.password")
            try (RadicaleServer.password + "\n").write(toFile: password, atomically: true, encoding: .utf8)
            chmod(password, 0o600)
            config = work.file("contactbox.toml")
            try """
            store = "\(db)"

            [[remote]]
            name = "radicale"
            kind = "carddav"
            url = "\(server.addressBookURL())"
            username = "\(RadicaleServer.username)"
            password_file = "\(password)"

            [[remote]]
            name = "nas"
            kind = "vdir"
            folder = "\(nas)"
            create_folder = true

            """.write(toFile: config, atomically: true, encoding: .utf8)
        }

        /// Runs `contactbox` with `arguments`.
        func run(_ arguments: [String]) throws -> ChildProcess.Outcome {
            try ChildProcess.run(RestoreCommandSyncTests.binary, arguments)
        }

        /// Imports `cards` (with --update: replacing the stored ones of the same UIDs).
        func importCards(_ cards: String, update: Bool = false) throws {
            let file = work.file("in.vcf")
            try cards.write(toFile: file, atomically: true, encoding: .utf8)
            let result = try run(["import", "--db", db] + (update ? ["--update"] : []) + [file])
            #expect(result.status == 0, "\(result.stderr)")
        }

        /// uid → display name of the cards Radicale serves, read over HTTP (not through the code under test).
        func serverNames() throws -> [String: String] {
            var names: [String: String] = [:]
            for file in try FileManager.default.contentsOfDirectory(atPath: server.collectionFolder())
            where file.hasSuffix(".vcf") {
                let (status, body) = try server.request("GET", server.addressBookURL() + file)
                if status == 200 { add(body, to: &names) }
            }
            return names
        }

        /// uid → display name of the cards in the folder.
        func folderNames() throws -> [String: String] {
            var names: [String: String] = [:]
            for file in try FileManager.default.contentsOfDirectory(atPath: nas) where file.hasSuffix(".vcf") {
                add(try String(contentsOfFile: nas + "/" + file, encoding: .utf8), to: &names)
            }
            return names
        }

        private func add(_ text: String, to names: inout [String: String]) {
            var reader = CardReader(text: text)
            if case .success(let parsed) = reader.next(), let uid = parsed.card.uid {
                names[uid] = parsed.card.displayName
            }
        }
    }

    static func cards(_ uids: Range<Int>, name: String) -> String {
        uids.map { index in
            [
                "BEGIN:VCARD", "VERSION:3.0", "UID:p\(index)", "FN:\(name) \(index)", "N:\(name) \(index);;;;",
                "END:VCARD",
            ]
            .joined(separator: "\r\n") + "\r\n"
        }.joined()
    }

    /// `--as-of` for a moment after every change so far, to the millisecond, in UTC; the next change is later.
    static func momentNow() -> String {
        let moment = wallClockMillis()
        while wallClockMillis() <= moment {}
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(moment) / 1_000))
    }

    @Test("restore --as-of deleting 40% of the remotes: sync exits 10 and deletes nothing until --confirm-deletions")
    func restoreDeletingFortyPercentIsHeld() throws {
        let box = try Box()
        try box.importCards(Self.cards(0..<12, name: "Person"))
        let first = try box.run(["sync", "--config", box.config])
        #expect(first.status == 0, "\(first.stderr)")
        let moment = Self.momentNow()
        try box.importCards(Self.cards(12..<20, name: "Later"))
        try box.importCards(Self.cards(0..<1, name: "Renamed"), update: true)
        let second = try box.run(["sync", "--config", box.config])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try box.serverNames().count == 20)
        #expect(try box.folderNames()["p0"] == "Renamed 0")

        let restore = try box.run(["restore", "--db", box.db, "--as-of", moment])
        #expect(restore.status == 0, "\(restore.stderr)")
        let lines = restore.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("deleted  Later ") }.count == 8)  // 8 of 20: 40%
        #expect(lines.contains("reverted  Person 0  p0"))
        #expect(!restore.stderr.contains("warning"), "\(restore.stderr)")

        let held = try box.run(["sync", "--config", box.config])
        #expect(held.status == 10, "\(held.stdout)\(held.stderr)")
        #expect(held.stderr.contains("nothing was deleted"), "\(held.stderr)")
        #expect(try box.serverNames().count == 20)
        #expect(try box.folderNames().count == 20)

        let confirmed = try box.run(["sync", "--config", box.config, "--confirm-deletions"])
        #expect(confirmed.status == 0, "\(confirmed.stdout)\(confirmed.stderr)")
        let restored = Dictionary(uniqueKeysWithValues: (0..<12).map { ("p\($0)", "Person \($0)") })
        #expect(try box.serverNames() == restored)
        #expect(try box.folderNames() == restored)
        let exported = try box.run(["export", "--db", box.db])
        #expect(exported.stdout.components(separatedBy: "BEGIN:VCARD").count - 1 == 12)
    }
}
