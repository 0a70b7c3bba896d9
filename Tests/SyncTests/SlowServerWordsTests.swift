import Foundation
import HTTP
import Sync
import Testing

@testable import CardDAV

/// The words of Docs/commands.md on a slow server (exit 75) are the figures the code keeps: a figure changed in one
/// place and not the other fails here.
@Suite("The documented limits on a slow server")
struct SlowServerWordsTests {
    static func readme() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("Docs/commands.md"), encoding: .utf8)
    }

    /// "a minute", "four minutes": how the docs write a span.
    static func words(_ span: Duration) -> String {
        let names = [1: "a minute", 4: "four minutes", 5: "five minutes", 10: "ten minutes"]
        let (seconds, _) = span.components
        return seconds % 60 == 0 ? names[Int(seconds / 60)] ?? "\(seconds / 60) minutes" : "\(seconds) s"
    }

    @Test("exit 75's row gives the low-speed limit and window, a listing's and large upload's, a request's, a turn's")
    func exit75() throws {
        let http = HTTPConfiguration()
        let row = try #require(try Self.readme().split(separator: "\n").first { $0.hasPrefix("| 75 |") })
        let expected =
            "too slow (less than \(http.lowSpeedLimit / 1024) KiB/s for \(Self.words(http.transferTimeout)), "
            + "\(Self.words(CardDAVClient.listingLowSpeedTime)) for a listing or for the answer to an upload of "
            + "\(CardDAVClient.largeUploadBytes >> 20) MiB or more; "
            + "\(Self.words(http.totalTimeout)) for one request; "
            + "\(Self.words(TurnDeadline.standardLimit)) for a remote's whole turn, retries included)"
        #expect(row.contains(expected), "\(row)")
    }

    @Test("the documented words of a turn that ran out are the code's")
    func turnWords() throws {
        let readme = try Self.readme()
        let message = TurnDeadline().error(remote: "NAME").message
        let quoted = try #require(message.split(separator: ";").first)
        #expect(readme.contains("A remote's turn ends after \(Self.words(TurnDeadline.standardLimit))"))
        #expect(readme.contains("(\"\(quoted)\")"), "\(quoted)")
    }
}
