/// Turns the unfolded lines of one card into a `Card`: decodes the values, upgrades vCard 2.1 to 3.0, repairs what
/// real exporters get wrong (non-standard escapes, bare parameters, legacy or missing charsets) and a missing
/// `VERSION`, `UID` or `FN`, noting each kind of repair once.
enum CardParser {
    static func parse(
        _ lines: [CardReader.RawLine], beginLine: Int, repairs initial: RepairLog = RepairLog()
    ) -> Result<ParsedCard, VCardError> {
        do throws(VCardError) {
            var log = initial
            let legacy = lines.contains { isVersion21($0.bytes) }
            var properties: [Property] = []
            properties.reserveCapacity(lines.count)
            for line in lines {
                do throws(VCardError) {
                    let read = try property(from: line, legacy: legacy, log: &log)
                    // `BEGIN;X=y:VCARD` is no card boundary to the reader but would be one once written: such a line
                    // holds no contact data, and keeping it would split the card on its next read.
                    let upper = read.name.uppercasedIfNeeded
                    guard upper != "BEGIN", upper != "END" else {
                        log.note(.structureLine, upper)
                        continue
                    }
                    properties.append(read)
                } catch {
                    // A line that is no property at all may be the rest of the one before it.
                    guard error.code == .malformedLine, let last = properties.indices.last,
                        !PropertyLine.startsLikeProperty(line.bytes),
                        join(line.bytes, to: &properties[last], legacy: legacy, log: &log)
                    else { throw error }
                }
            }
            var card = Card(properties: properties)
            repair(&card, log: &log)
            return .success(
                ParsedCard(card: card, line: beginLine, repairs: log.messages, warnings: log.warnings))
        } catch {
            return .failure(error)
        }
    }

    /// `VERSION:2.1`, also with parameters or a group (`VERSION;X=1:2.1`): the card is read as 2.1 exactly when
    /// it will be written with that version line, so that what is written reads back the same. The whole line is
    /// judged, however long its parameters: a version line is as short as it is written only once it is read.
    static func isVersion21(_ bytes: [UInt8]) -> Bool {
        guard let end = bytes.firstIndex(where: { $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: ":") }),
            let colon = bytes[end...].firstIndex(of: UInt8(ascii: ":"))
        else { return false }
        if isOtherASCIIName(bytes[..<end]) { return false }
        func text(_ part: ArraySlice<UInt8>) -> String {
            String(decoding: part, as: UTF8.self).uppercased().filter { $0 != " " }
        }
        guard text(bytes[..<end]).split(separator: ".", omittingEmptySubsequences: false).last == "VERSION" else {
            return false
        }
        return text(bytes[(colon + 1)...]) == "2.1"
    }

    private static let versionBytes = Array("VERSION".utf8)

    /// Whether a property name (group included, spaces ignored) is plain ASCII and not `VERSION`: what
    /// `isVersion21` finds of every line but one, without making a String of it. False when it cannot tell so
    /// cheaply (a name that is not ASCII, whose upper case may be).
    private static func isOtherASCIIName(_ name: ArraySlice<UInt8>) -> Bool {
        guard name.allSatisfy({ $0 < 0x80 }) else { return false }
        var matched = 0
        for byte in name.reversed() where byte != UInt8(ascii: " ") {
            if matched == versionBytes.count { return byte != UInt8(ascii: ".") }
            let upper = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 0x20 : byte
            guard upper == versionBytes[versionBytes.count - 1 - matched] else { return true }
            matched += 1
        }
        return matched != versionBytes.count
    }

    /// The property of a line; a spooled value (`RawLine.large`) is read as it is (base64 or a `data:` URI, ASCII,
    /// its spaces dropped where base64), and its name and parameters as any other's.
    private static func property(
        from line: CardReader.RawLine, legacy: Bool, log: inout RepairLog
    ) throws(VCardError) -> Property {
        var property = try propertyInMemory(from: line, legacy: legacy, log: &log)
        if let large = line.large { property.setLarge(large) }
        return property
    }

    private static func propertyInMemory(
        from line: CardReader.RawLine, legacy: Bool, log: inout RepairLog
    ) throws(VCardError) -> Property {
        let parsed = try PropertyLine(line.bytes, line: line.number)
        var property = Property(
            group: parsed.group, name: standardName(parsed.name),
            parameters: parsed.parameters.map { Parameter(standardName($0.name), $0.values) }, value: "")
        if parsed.nonUTF8Parameters { log.note(.notUTF8, property.name) }
        let upperName = property.name.uppercasedIfNeeded
        let encoding = property.parameterValues("ENCODING").first?.uppercased()
        let quotedPrintable =
            encoding == "QUOTED-PRINTABLE"
            || property.parameters.contains { $0.values.isEmpty && $0.name.uppercased() == "QUOTED-PRINTABLE" }
        let raw = quotedPrintable ? QuotedPrintable.decode(parsed.value)[...] : parsed.value
        let charset = property.parameterValues("CHARSET").first
        let decoded = Charset.decode(raw, charset: charset)
        switch decoded.note {
        case nil: break
        case .decoded(let name): log.note(.charset, name)
        case .notUTF8: log.note(.notUTF8, property.name)
        case .unusable(let name, let readAs): log.note(.unusableCharset, "CHARSET=\(name) (read as \(readAs))")
        }
        let text = decoded.text
        if legacy {
            var upgraded = Legacy.upgrade(property, value: text)
            if upperName == "URL", let repaired = TextValue.unescapingURI(upgraded.value) {
                upgraded.value = repaired.value  // the same rule as for 3.0, so that what we write reads back alike
                for escape in repaired.repaired { log.note(.escapes, escape) }
            }
            return upgraded
        }
        // The value is UTF-8 now: a legacy CHARSET would be false, and 3.0 and 4.0 have no quoted-printable.
        // Names are upper case by now (`standardName`), so they compare as they are: this runs for every property.
        property.parameters.removeAll {
            ($0.name == "CHARSET" && !isUTF8(Charset.canonicalName($0.values.first ?? "")))
                || ($0.name == "ENCODING" && $0.values.first?.uppercased() == "QUOTED-PRINTABLE")
                || ($0.name == "QUOTED-PRINTABLE" && $0.values.isEmpty)
        }
        repairBareParameters(&property, log: &log)
        property.value = text
        if quotedPrintable {
            // A 3.0 writer that used quoted-printable anyway: its line breaks become `\n`, and then the value is read
            // like any other, so that what is written reads back the same.
            property.value = text.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }
                .joined(separator: "\\n")
        }
        if TextValue.textProperties.contains(upperName) {
            // Text whatever its ENCODING says (as the 2.1 reader takes it): the same value must read back the same.
            if let repaired = TextValue.repairingEscapes(in: property.value) {
                property.value = repaired.value
                for escape in repaired.repaired { log.note(.escapes, escape) }
            }
        } else if upperName == "URL" {
            // A URI has no escapes, but Apple and Google write `URL:http\://...` as if it were text. A URI whatever
            // its ENCODING says, like text above.
            if let repaired = TextValue.unescapingURI(property.value) {
                property.value = repaired.value
                for escape in repaired.repaired { log.note(.escapes, escape) }
            }
        } else if property.parameters.contains(where: { $0.name == "ENCODING" && $0.values.first?.lowercased() == "b" })
        {
            // Base64 folded with extra spaces (Apple's two-space continuation lines): the spaces are not data.
            property.value = TextValue.removingWhitespace(property.value)
        } else if upperName.hasPrefix("X-") {
            // An extension property's value is text (RFC 6350 3.3): written with its `;` and `,` escaped, as servers
            // write it back (Radicale otherwise keeps only what comes before an unescaped comma).
            property.value = TextValue.canonical(property.value, property: upperName)
        }
        return property
    }

    /// Text properties whose writers put raw line breaks in them (a NOTE pasted with its lines).
    private static let multilineProperties: Set<String> = ["NOTE", "LABEL"]

    /// Joins a line that is not a property to the property before it, when that one can continue: base64 data on
    /// lines that are not indented (vCard 2.1 writers), or a NOTE or LABEL whose writer did not escape its line
    /// breaks. Returns false, changing nothing, for any other property.
    private static func join(
        _ bytes: [UInt8], to property: inout Property, legacy: Bool, log: inout RepairLog
    ) -> Bool {
        let name = property.name.uppercased()
        if property.parameters.contains(where: { $0.name == "ENCODING" && $0.values.first?.lowercased() == "b" }) {
            guard bytes.allSatisfy(isBase64OrSpace) else { return false }
            property.value += String(decoding: bytes.filter { !isSpace($0) }, as: UTF8.self)
            log.note(.joinedLines, name)
            return true
        }
        guard multilineProperties.contains(name) else { return false }
        let decoded = Charset.decode(bytes, charset: nil)
        if decoded.note != nil { log.note(.notUTF8, name) }
        var text = decoded.text
        if legacy {
            text = Legacy.escape(text, property: name)
        } else if let repaired = TextValue.repairingEscapes(in: text) {
            text = repaired.value
            for escape in repaired.repaired { log.note(.escapes, escape) }
        }
        property.value += "\\n" + text
        log.note(.joinedLines, name)
        return true
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    private static func isBase64OrSpace(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="), 0x20, 0x09:
            true
        default: false
        }
    }

    private static func isUTF8(_ name: String) -> Bool {
        name == "UTF-8" || name == "UTF8" || name == "US-ASCII" || name == "ASCII"
    }

    /// Property and parameter names in upper case, as RFC 6350 writes them (they are case-insensitive), except
    /// `X-` names, which some readers match exactly as their writer spelled them (Apple's `X-ABLabel`).
    static func standardName(_ name: String) -> String {
        let utf8 = name.utf8
        if utf8.count >= 2, utf8.first.map({ $0 | 0x20 }) == UInt8(ascii: "x"),
            utf8.dropFirst().first == UInt8(ascii: "-")
        {
            return name
        }
        return name.containsByte { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") } ? name.uppercased() : name
    }

    /// vCard 2.1's bare parameters (`TEL;CELL:`) in a 3.0 or 4.0 card, which has none: a type becomes `TYPE=CELL`,
    /// `BASE64` becomes `ENCODING=b`, and the 2.1 transfer encodings `7BIT` and `8BIT` go.
    private static func repairBareParameters(_ property: inout Property, log: inout RepairLog) {
        guard property.parameters.contains(where: { $0.values.isEmpty }) else { return }
        var types: [String] = []
        var kept: [Parameter] = []
        for parameter in property.parameters {
            guard parameter.values.isEmpty else {
                kept.append(parameter)
                continue
            }
            switch parameter.name.uppercased() {
            case "BASE64", "B":
                kept.append(Parameter("ENCODING", ["b"]))
                log.note(.bareParameters, parameter.name + " as ENCODING=b")
            case "7BIT", "8BIT":
                log.note(.bareParameters, parameter.name + " dropped")
            default:
                types.append(parameter.name)
                log.note(.bareParameters, parameter.name + " as TYPE=" + parameter.name)
            }
        }
        if !types.isEmpty {
            if let index = kept.firstIndex(where: { $0.name.uppercased() == "TYPE" }) {
                kept[index].values += types
            } else {
                kept.append(Parameter("TYPE", types))
            }
        }
        property.parameters = kept
    }

    /// A missing VERSION or UID is added; a missing FN is derived from N or ORG when the card has one. A card with
    /// no name at all (only an EMAIL, a TEL or an ADR) is kept as it is: `Card.displayName` lists it by what it has,
    /// and `Card.addingDerivedFN()` makes an FN for a server that requires one.
    private static func repair(_ card: inout Card, log: inout RepairLog) {
        if card.first("VERSION") == nil {
            card.properties.insert(Property(name: "VERSION", value: "3.0"), at: 0)
            log.note(.added, "VERSION:3.0")
        }
        if card.formattedName == nil, let derived = card.derivedFN, derived.source == "N" || derived.source == "ORG" {
            let fn = Property(name: "FN", value: TextValue.escape(derived.text))
            card.properties.removeAll { $0.isNamed("FN") }
            let after = card.properties.firstIndex { $0.isNamed(derived.source) } ?? (card.properties.count - 1)
            card.properties.insert(fn, at: after + 1)
            log.note(.derivedFN, derived.source)
        }
        repairUID(&card, log: &log)
        checkBase64(card, log: &log)
        if (card.uid ?? "").isEmpty {
            let uid = Card.makeUID()
            card.setUID(uid)
            log.note(.addedUID, uid)
        }
    }
}

extension CardParser {
    /// A UID is an identity that goes into file names, URLs, logs and SQL; a control character in it (a NUL, an
    /// escape sequence) has no place there. They are removed; a UID of nothing but control characters becomes one
    /// derived from it, so that the same card gets the same UID on every run and sync does not churn.
    fileprivate static func repairUID(_ card: inout Card, log: inout RepairLog) {
        guard let uid = card.uid, uid.unicodeScalars.contains(where: isControl) else { return }
        var cleaned = String(String.UnicodeScalarView(uid.unicodeScalars.filter { !isControl($0) }))
        if cleaned.allSatisfy({ $0 == " " }) { cleaned = Card.stableUID(forLocation: "UID\n" + uid) }
        card.setUID(cleaned)
        log.note(.uidControls, cleaned)
    }

    /// C0 controls, DEL and the C1 controls.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Binary data (a photo, a logo, a key) that is not valid base64 is kept exactly as it is, since dropping it
    /// would lose what may be the only copy, but it is reported: a reader may show a broken image or none.
    fileprivate static func checkBase64(_ card: Card, log: inout RepairLog) {
        for property in card.properties where Property.mediaProperties.contains(property.name.uppercasedIfNeeded) {
            // Where the data starts, told by the value's head: a spooled photo is checked a piece at a time.
            let head = property.valueHead
            let start: Int
            if property.parameterValues("ENCODING").first?.lowercased() == "b" {
                start = 0
            } else if head.prefix(5).lowercased() == "data:", let comma = head.firstIndex(of: ","),
                head[..<comma].lowercased().hasSuffix(";base64")
            {
                start = head.utf8.distance(from: head.startIndex, to: comma) + 1
            } else {
                continue
            }
            var check = Base64Check()
            var offset = 0
            property.forEachValuePiece { piece in
                let bytes = piece.bindMemory(to: UInt8.self)
                let skip = max(0, start - offset)
                offset += bytes.count
                if skip < bytes.count { check.feed(UnsafeBufferPointer(rebasing: bytes[skip...])) }
            }
            if !check.isValid { log.note(.invalidBase64, property.name.uppercased()) }
        }
    }

    /// RFC 4648 base64 (white space aside, which folding leaves); missing padding is tolerated, since it decodes
    /// all the same.
    static func isBase64(_ text: Substring) -> Bool {
        var check = Base64Check()
        // A photo is tens of KB: its bytes in place, not a Substring's UTF-8 view index by index.
        if text.utf8.withContiguousStorageIfAvailable({ check.feed($0) }) == nil {
            Array(text.utf8).withUnsafeBufferPointer { check.feed($0) }
        }
        return check.isValid
    }

    /// Whether bytes fed in pieces are base64, as `isBase64` says.
    struct Base64Check {
        private var count = 0
        private var padding = 0
        private var valid = true

        var isValid: Bool { valid && padding <= 2 && (padding == 0 ? count % 4 != 1 : count % 4 == 0) }

        mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard valid else { return }
            var index = 0
            // One table lookup a byte, and a tight loop over the runs of letters: a photo is tens of KB, and this
            // runs for every card read.
            base64Classes.withUnsafeBufferPointer { classes in
                while index < bytes.count {
                    let run = index
                    while index < bytes.count, classes[Int(bytes[index])] == .letter { index += 1 }
                    guard padding == 0 || index == run else {  // a letter after `=`
                        valid = false
                        return
                    }
                    count += index - run
                    guard index < bytes.count else { break }
                    switch classes[Int(bytes[index])] {
                    case .space: break
                    case .padding: (padding, count) = (padding + 1, count + 1)
                    default:
                        valid = false
                        return
                    }
                    index += 1
                }
            }
        }
    }

    private enum Base64Class: UInt8 { case other, letter, padding, space }

    /// Each byte's class in base64 text: RFC 4648 letters, `=`, and the white space folding leaves.
    private static let base64Classes: [Base64Class] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            .letter
        case UInt8(ascii: "="): .padding
        case 0x20, 0x09, 0x0D, 0x0A: .space
        default: .other
        }
    }
}

/// What was repaired in one card, each kind once, in the order first seen: `messages` is what import prints after
/// "repaired:".
struct RepairLog: Sendable {
    enum Kind: Sendable {
        case fileEncoding, byteOrderMark, lineEnds, added, derivedFN, addedUID, charset, unusableCharset, notUTF8,
            escapes
        case bareParameters, joinedLines, structureLine
        /// Repairs that change an identity or leave doubtful data: sync reports these for every card it reads.
        case uidControls, invalidBase64
    }

    private var kinds: [Kind] = []
    private var details: [Kind: [String]] = [:]

    mutating func note(_ kind: Kind, _ detail: String = "") {
        if details[kind] == nil {
            kinds.append(kind)
            details[kind] = []
        }
        if !detail.isEmpty, details[kind]?.contains(detail) == false { details[kind]?.append(detail) }
    }

    var isEmpty: Bool { kinds.isEmpty }

    /// What sync and import report for the card, naming it (`ParsedCard.warnings`): a UID changed, and data kept
    /// that is not valid.
    var warnings: [String] {
        messages(of: kinds.filter { $0 == .uidControls || $0 == .invalidBase64 })
    }

    /// Data kept as it is, with a doubt (invalid base64), is no repair: what is written reads back the same.
    var messages: [String] { messages(of: kinds.filter { $0 != .invalidBase64 }) }

    private func messages(of kinds: [Kind]) -> [String] {
        kinds.flatMap { kind -> [String] in
            let items = details[kind] ?? []
            let list = items.joined(separator: ", ")
            switch kind {
            case .fileEncoding: return ["read a file written in \(list) (vCard is UTF-8)"]
            case .byteOrderMark: return ["ignored a byte order mark"]
            case .lineEnds: return ["read line ends written as CR CR LF or a lone CR"]
            case .added: return items.map { "added \($0)" }
            case .derivedFN: return items.map { "derived FN from \($0)" }
            case .addedUID: return items.map { "added UID \($0)" }
            case .charset: return ["decoded CHARSET=\(items.joined(separator: ", CHARSET=")) to UTF-8"]
            case .unusableCharset: return ["could not decode \(list)"]
            case .notUTF8: return ["read text that is not UTF-8 as Windows-1252 (\(list))"]
            case .escapes:
                return ["read non-standard escapes \(items.joined(separator: " ")) as the escaped characters"]
            case .bareParameters: return ["read bare parameters \(list)"]
            case .joinedLines: return ["joined lines that were not properties to the \(list) before them"]
            case .structureLine: return ["dropped \(list) lines inside the card"]
            case .uidControls: return items.map { "removed control characters from the UID, now \($0)" }
            case .invalidBase64: return ["\(list) holds data that is not valid base64; kept as it is"]
            }
        }
    }
}
