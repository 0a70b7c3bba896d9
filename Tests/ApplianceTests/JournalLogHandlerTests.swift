import Logging
import Testing

@testable import Appliance

@Suite("The journal's log lines")
struct JournalLogHandlerTests {
    private func line(
        _ message: Logger.Message, metadata: Logger.Metadata? = nil, prefixed: Bool = true
    ) -> String {
        let handler = JournalLogHandler(level: .trace, prefixed: prefixed)
        return handler.line(
            LogEvent(
                level: .warning, message: message, metadata: metadata, source: nil, file: #fileID,
                function: #function, line: #line))
    }

    @Test("A message with '\\n<3>forged' stays one escaped line under our priority")
    func forgedEntry() {
        let written = line("Card \"Eve\n<3>forged error\" skipped")
        #expect(written == "<4>Card \"Eve\\u{A}<3>forged error\" skipped\n")
        #expect(written.split(separator: "\n").count == 1)
    }

    @Test("Metadata keys and values from outside are escaped too, in the journal and on a terminal")
    func metadataEscaped() {
        let metadata: Logger.Metadata = [
            "remote.href": "/book/\u{1B}]0;owned\u{07}.vcf", "server.message": "bad\r\n<2>crit",
            "odd\nkey": "\u{202E}fdp.exe",
        ]
        for prefixed in [true, false] {
            let written = line("Item refused", metadata: metadata, prefixed: prefixed)
            #expect(
                written.hasSuffix(
                    "Item refused odd\\u{A}key=\\u{202E}fdp.exe "
                        + "remote.href=/book/\\u{1B}]0;owned\\u{7}.vcf server.message=bad\\u{D}\\u{A}<2>crit\n"))
            #expect(written.filter { $0 == "\n" || $0 == "\r\n" }.count == 1)
            // The terminal's own line-clearing prefix is ours; nothing after it is a control character.
            let afterPrefix = written.dropFirst(prefixed ? 3 : "\r\u{1B}[2Kwarning: ".count).dropLast()
            #expect(!afterPrefix.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "\u{202E}" })
        }
    }
}
