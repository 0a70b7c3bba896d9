import Testing

@testable import VCard

@Suite("Line folding")
struct FoldingTests {
    @Test("long lines fold at 75 octets and unfold to the same value")
    func longLinesFold() throws {
        let note = String(repeating: "abcdefghij", count: 30)
        let card = try makeCard("VERSION:3.0", "UID:1", "FN:Ada", "NOTE:\(note)")
        let text = card.serialized()
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.allSatisfy { $0.utf8.count <= 75 })
        #expect(lines.count > 5)
        let again = try #require(cards(readAll(text)).first)
        #expect(again.first("NOTE")?.value == note)
        #expect(again.serialized() == text)
    }

    @Test("a request body's bytes are the serialised text's, held without spare capacity")
    func serializedBytesAreTheText() throws {
        for prefix in 0..<4 {
            let note = String(repeating: "x", count: prefix) + String(repeating: "日本語€ü😀 ", count: 40)
            let card = try makeCard("VERSION:4.0", "UID:1", "FN:Ada", "NOTE:\(note)", "PHOTO:data:,\(note)")
            let bytes = card.serializedBytes()
            #expect(bytes == Array(card.serialized().utf8))
            // The reserve is an upper bound: the bytes never outgrew it (a regrowth would double the capacity).
            #expect(bytes.capacity < bytes.count * 11 / 10 + 64)
        }
    }

    @Test("a line break in a value is written as \\n in every form; parameter values are quoted and caret-encoded")
    func contentLines() throws {
        let card = Card(properties: [
            Property(name: "VERSION", value: "3.0"), Property(name: "UID", value: "1"),
            Property(name: "NOTE", value: "a\r\nb\nc\rd\r\r\ne"),
            Property(
                group: "item1", name: "X-A",
                parameters: [Parameter("X-P", ["x,y", "plain", "q\"uote"]), Parameter("B", [])], value: "v"),
        ])
        let text = card.serialized()
        #expect(text.contains("\r\nNOTE:a\\nb\\nc\\nd\\n\\ne\r\n"))
        #expect(text.contains(#"\#r\#nitem1.X-A;X-P="x,y",plain,q^'uote;B:v\#r\#n"#))
        #expect(card.serializedBytes() == Array(text.utf8))
    }

    @Test("a fold never splits a multi-byte UTF-8 sequence")
    func foldKeepsUTF8Whole() throws {
        for prefix in 0..<4 {
            let note = String(repeating: "x", count: prefix) + String(repeating: "日本語€ü😀", count: 20)
            let card = try makeCard("VERSION:4.0", "UID:1", "FN:Ada", "NOTE:\(note)")
            let bytes = Array(card.serialized().utf8)
            var lines: [[UInt8]] = [[]]
            var index = 0
            while index < bytes.count {
                if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                    lines.append([])
                    index += 2
                } else {
                    lines[lines.count - 1].append(bytes[index])
                    index += 1
                }
            }
            for line in lines where !line.isEmpty {
                #expect(line.count <= 75)
                #expect(String(validating: line, as: UTF8.self) != nil, "a folded line is not valid UTF-8 on its own")
            }
            #expect(cards(readAll(card.serialized())).first?.first("NOTE")?.text == note)
        }
    }

    @Test("tab-folded and LF-only input unfolds like CRLF with spaces")
    func otherFoldingStyles() throws {
        let text = "BEGIN:VCARD\nVERSION:3.0\nUID:1\nFN:Ada Love\n\tlace\nNOTE:one\n  two\nEND:VCARD\n"
        let card = try #require(cards(readAll(text)).first)
        #expect(card.displayName == "Ada Lovelace")
        #expect(card.first("NOTE")?.value == "one two")
    }
}
