import ContactStore
import StatusServer
import VCard

/// A list's line for a contact, read from the card's bytes without parsing the card: its first `TEL` and `EMAIL`
/// and whether its `PHOTO` starts as an image. A list page reads 100 cards, and a photo is most of a card's bytes:
/// the reader's whole parse (every value unfolded, a photo's base64 checked) cost a page at 50,000 contacts about
/// 20 ms (Docs/measurements/contacts.md), where this skips a photo's lines after its first and looks at nothing
/// else. The name is the store's (`display_name`, which it derives from the card as the reader does).
///
/// It reads what a line of a card is (RFC 6350 3.2: a logical line folded on a space or tab; `group.NAME;params:value`)
/// and gives up (nil: the caller parses the card) on what it does not handle: a spooled card, vCard 2.1's
/// quoted-printable, a line without a value.
enum QuickSummary {
    static func of(_ contact: StoredContact) -> ContactSummary? {
        guard case .bytes(let bytes) = contact.text else { return nil }
        var phone: String?
        var email: String?
        var photo: Bool?
        var failed = false
        bytes.withUnsafeBufferPointer { card in
            var start = 0
            while start < card.count, !(phone != nil && email != nil && photo != nil) {
                let end = logicalLineEnd(card, from: start)
                switch name(card, start, end) {
                case "TEL" where phone == nil:
                    guard let value = value(card, start, end, atMost: 4096) else {
                        failed = true
                        return
                    }
                    phone = CardView.withoutScheme(value, "tel:")
                case "EMAIL" where email == nil:
                    guard let value = value(card, start, end, atMost: 4096) else {
                        failed = true
                        return
                    }
                    email = CardView.withoutScheme(value, "mailto:")
                case "PHOTO" where photo == nil:
                    photo = startsAsImage(card, start, end)
                default: break
                }
                start = end
            }
        }
        guard !failed else { return nil }
        return ContactSummary(
            uid: contact.uid, name: contact.displayName, phone: phone.flatMap { $0.isEmpty ? nil : $0 },
            email: email.flatMap { $0.isEmpty ? nil : $0 }, initials: CardView.initials(contact.displayName),
            hasPhoto: photo ?? false, hash: contact.hash, changeSeq: contact.changeSeq, changedAt: contact.changedAt)
    }

    /// Where the logical line at `start` ends: past its last physical line's LF, the folds (a line break followed by
    /// a space or tab) within it.
    static func logicalLineEnd(_ card: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < card.count {
            guard card[index] == 0x0A else {
                index += 1
                continue
            }
            index += 1
            guard index < card.count, card[index] == 0x20 || card[index] == 0x09 else { return index }
        }
        return index
    }

    /// The property's name in upper case, without its group; "" when the line has none.
    static func name(_ card: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        var nameStart = start
        var index = start
        while index < end, card[index] != UInt8(ascii: ";"), card[index] != UInt8(ascii: ":"),
            card[index] != 0x0D, card[index] != 0x0A
        {
            if card[index] == UInt8(ascii: ".") { nameStart = index + 1 }
            index += 1
        }
        guard index - nameStart <= 16 else { return "" }
        return String(decoding: UnsafeBufferPointer(rebasing: card[nameStart..<index]), as: UTF8.self).uppercased()
    }

    /// The line unfolded, at most `limit` bytes of it.
    static func unfolded(_ card: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, limit: Int) -> [UInt8] {
        var line: [UInt8] = []
        var index = start
        while index < end, line.count < limit {
            let byte = card[index]
            if byte == 0x0D || byte == 0x0A {
                // A fold: the break and the one space or tab after it go.
                index += byte == 0x0D && index + 1 < end && card[index + 1] == 0x0A ? 2 : 1
                if index < end, card[index] == 0x20 || card[index] == 0x09 { index += 1 }
                continue
            }
            line.append(byte)
            index += 1
        }
        return line
    }

    /// Where the value starts in an unfolded line: after the first colon outside a quoted parameter value.
    static func valueStart(_ line: [UInt8]) -> Int? {
        var quoted = false
        for (index, byte) in line.enumerated() {
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if byte == UInt8(ascii: ":"), !quoted { return index + 1 }
        }
        return nil
    }

    /// A text value unescaped (`\,` `\;` `\\` `\n`); nil for a line without a value or in quoted-printable.
    static func value(_ card: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, atMost limit: Int) -> String? {
        let line = unfolded(card, start, end, limit: limit)
        guard let at = valueStart(line) else { return nil }
        let head = String(decoding: line[..<at], as: UTF8.self).uppercased()
        guard !head.contains("QUOTED-PRINTABLE") else { return nil }
        var value: [UInt8] = []
        var escaped = false
        for byte in line[at...] {
            if escaped {
                value.append(byte == UInt8(ascii: "n") || byte == UInt8(ascii: "N") ? 0x0A : byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else {
                value.append(byte)
            }
        }
        return String(decoding: value, as: UTF8.self).trimmingWhitespace
    }

    /// Whether the photo is embedded base64 (`ENCODING=b`, vCard 2.1's `BASE64`, or a `data:...;base64,` URI) whose
    /// first bytes are an image a browser may be given; its first 256 bytes are all that is read.
    static func startsAsImage(_ card: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        let line = unfolded(card, start, end, limit: 256)
        guard let at = valueStart(line) else { return false }
        let parameters = String(decoding: line[..<at], as: UTF8.self).uppercased()
        var data = line[at...]
        if data.count >= 5, String(decoding: data.prefix(5), as: UTF8.self).lowercased() == "data:" {
            guard let comma = data.firstIndex(of: UInt8(ascii: ",")),
                String(decoding: data[..<comma], as: UTF8.self).lowercased().hasSuffix(";base64")
                    || String(decoding: data[..<comma], as: UTF8.self).lowercased().hasSuffix(";base64\\")
            else { return false }
            data = data[(comma + 1)...]
        } else {
            guard parameters.contains("ENCODING=B") || parameters.contains("BASE64") else { return false }
        }
        var decoder = Base64Decoder()
        var head: [UInt8] = []
        for byte in data {
            guard decoder.take(byte, into: &head), head.count < 12 else { break }
        }
        return ImageType.of(head) != nil
    }
}
