import Foundation
import Testing

/// A UID with NUL or an escape sequence, and a PHOTO that is not base64: imported and synced, kept, and reported
/// naming the file; the UID repaired the same way on every run, so that sync does not churn.
@Suite("contactbox import and sync of cards with control characters in the UID and broken base64")
struct InputHygieneCommandTests {
    static let nulUID: [UInt8] =
        Array("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:a".utf8) + [0x00, 0x1B] + Array("[2Jb\r\nFN:Nul Uid\r\n".utf8)
        + Array("PHOTO;ENCODING=b;TYPE=JPEG:not*base64!\r\nEND:VCARD\r\n".utf8)

    @Test("import keeps the card under the repaired UID and says what it changed and what it doubts")
    func importRepairs() throws {
        let work = try Workspace()
        let file = work.path + "/in.vcf"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(Self.nulUID)))
        let first = try contactbox(["import", "--db", work.db, file])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("\(file):1: repaired: removed control characters from the UID, now a[2Jb"))
        #expect(first.stderr.contains("\(file):1: PHOTO holds data that is not valid base64; kept as it is"))
        let shown = try contactbox(["show", "--db", work.db, "a[2Jb"])
        #expect(shown.status == 0 && shown.stdout.contains("PHOTO;ENCODING=b;TYPE=JPEG:not*base64!"), "\(shown)")
        // The same file again is the same contact: nothing new.
        _ = try contactbox(["import", "--db", work.db, file])
        #expect(try contactbox(["list", "--db", work.db]).stdout.split(separator: "\n").count == 1)
        #expect(try contactbox(["check", "--db", work.db]).status == 0)
    }

    @Test("sync from a folder keeps the card, reports it by its file, and does not churn on the next run")
    func syncRepairs() throws {
        let work = try Workspace()
        let folder = work.path + "/folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder + "/nul.vcf", contents: Data(Self.nulUID)))
        _ = try work.file("folder/good.vcf", card("good", "Good"))
        let config = try work.file(
            "contactbox.toml",
            """
            store = "\(work.db)"

            [[remote]]
            name = "folder"
            kind = "vdir"
            folder = "\(folder)"

            """)
        let first = try contactbox(["sync", "--config", config])
        let output = first.stdout + first.stderr
        #expect(first.status == 0, "\(output)")
        #expect(output.contains("2 downloaded"), "\(output)")
        #expect(output.contains("nul.vcf: removed control characters from the UID, now a[2Jb"), "\(output)")
        #expect(output.contains("nul.vcf: PHOTO holds data that is not valid base64; kept as it is"), "\(output)")
        #expect(try contactbox(["show", "--db", work.db, "a[2Jb"]).status == 0)
        let second = try contactbox(["sync", "--config", config])
        #expect(
            second.status == 0
                && second.stdout.contains(
                    "store: 0 downloaded, 0 updated, 0 deleted; server: 0 uploaded, 0 updated, 0 deleted"),
            "\(second)")
        #expect(try contactbox(["check", "--db", work.db]).status == 0)
    }
}
