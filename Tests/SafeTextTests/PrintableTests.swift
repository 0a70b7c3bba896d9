import SafeText
import Testing

@Suite("Text from outside, made safe to show")
struct PrintableTests {
    @Test("Every C0 control, DEL, every C1 control, the separators and the bidi controls are written as code points")
    func everyControlEscaped() {
        let controls: [UInt32] =
            Array(0..<0x20) + Array(0x7F...0x9F) + [0x2028, 0x2029] + Array(0x202A...0x202E) + Array(0x2066...0x2069)
        for value in controls {
            let scalar = Unicode.Scalar(value)!
            let shown = printable("a" + String(Character(scalar)) + "b")
            #expect(shown == "a\\u{" + String(value, radix: 16, uppercase: true) + "}b", "U+\(value)")
            #expect(!shown.unicodeScalars.contains(scalar))
        }
        #expect(printable("\u{1B}[2J") == "\\u{1B}[2J")
        #expect(printable("\u{202E}gnp.exe") == "\\u{202E}gnp.exe")
    }

    @Test("Ordinary text, accents, scripts written right to left, marks and emoji pass unchanged")
    func ordinaryTextUnchanged() {
        for text in ["Zoë Ünal", "Ἀθηνᾶ", "محمد", "שלום\u{200F}", "😀 👩‍👩‍👧", "a\\u{1B}b", "", "\u{A0}nbsp"] {
            #expect(printable(text) == text)
        }
    }

    @Test("A line break cannot start a second line: '\\n<3>forged' stays on one")
    func lineBreakEscaped() {
        let shown = printable("Sync done\n<3>forged error\r\n")
        #expect(shown == "Sync done\\u{A}<3>forged error\\u{D}\\u{A}")
        #expect(!shown.contains("\n") && !shown.contains("\r"))
    }

    @Test("keepingLayout keeps line breaks and tabs, and still escapes the rest")
    func keepingLayout() {
        #expect(
            printable("BEGIN:VCARD\r\nFN:Eve\u{1B}]0;x\u{07}\r\n\tfolded\r\n", keepingLayout: true)
                == "BEGIN:VCARD\r\nFN:Eve\\u{1B}]0;x\\u{7}\r\n\tfolded\r\n")
        #expect(printable("a\tb") == "a\\u{9}b")
    }
}
