import SafeText

/// The bytes of one response body, written straight into one array that is reserved up front: the page, the JSON
/// and the metrics are built without intermediate strings, so a request costs about one allocation for the body
/// (and libmicrohttpd's copy of it).
struct ByteWriter {
    private(set) var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    var count: Int { bytes.count }

    /// Text we wrote ourselves (markup, keys, metric names): copied as it is, never escaped.
    mutating func raw(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Takes back the last byte written (a JSON object's `}` that another writer goes on with).
    mutating func removeLast() {
        _ = bytes.popLast()
    }

    /// Decimal digits, without going through a String.
    mutating func decimal(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits hold UInt64.max; the digits come out last first.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var index = 20
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeMutableBufferPointer(rebasing: digits[index...]))
        }
    }

    mutating func decimal(_ value: Int) {
        decimal(Int64(value))
    }

    /// A floating-point sample value as the Prometheus text format reads it (Go's ParseFloat, plus its spellings of
    /// the special values): "1.5", "2e-05", "+Inf", "NaN".
    mutating func sampleValue(_ value: Double) {
        if value.isNaN {
            raw("NaN")
        } else if value.isInfinite {
            raw(value < 0 ? "-Inf" : "+Inf")
        } else if value == value.rounded(.towardZero), value.magnitude < 1e15 {
            decimal(Int64(value))
        } else {
            raw(value.description)
        }
    }
}

extension ByteWriter {
    /// Text for people as a JSON string: its control characters first written as `\u{1B}` (`printable`), as on
    /// the page and in the journal, so that what reads the JSON (the page's script, people's scripts and
    /// dashboards) gets text that is safe to show; then encoded (``jsonEncoded(_:)``).
    mutating func jsonString(_ text: String) {
        jsonEncoded(printable(text))
    }

    /// A JSON string (RFC 8259 section 7): the quotation mark, the reverse solidus and the control characters
    /// U+0000 to U+001F must be escaped; everything else may go as UTF-8, which Swift strings always are.
    mutating func jsonEncoded(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0..<0x20:
                raw("\\u00")
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0x0F))
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `items` as a JSON array, each element written by `element`.
    mutating func jsonArray<Item>(_ items: [Item], _ element: (Item, inout ByteWriter) -> Void) {
        raw("[")
        for (index, item) in items.enumerated() {
            if index > 0 { raw(",") }
            element(item, &self)
        }
        raw("]")
    }

    /// A JSON string or `null`.
    mutating func jsonString(_ text: String?) {
        if let text { jsonString(text) } else { raw("null") }
    }

    /// A JSON number or `null`.
    mutating func jsonNumber(_ value: Int64?) {
        if let value { decimal(value) } else { raw("null") }
    }

    /// Text for an HTML text node or a quoted attribute value: `&`, `<`, `>`, `"` and `'` become character
    /// references, so text from a configuration file or a server can never open a tag or leave an attribute;
    /// control characters are shown as `\u{1B}` (`printable`), so that none is hidden or reorders the page (a
    /// bidi override), and the page reads as the JSON that its script puts in later.
    /// With `keepingLayout`, line breaks and tabs stay (a note's lines, shown with `white-space: pre-wrap`).
    mutating func html(_ text: String, keepingLayout: Bool = false) {
        for byte in printable(text, keepingLayout: keepingLayout).utf8 {
            switch byte {
            case UInt8(ascii: "&"): raw("&amp;")
            case UInt8(ascii: "<"): raw("&lt;")
            case UInt8(ascii: ">"): raw("&gt;")
            case UInt8(ascii: "\""): raw("&quot;")
            case UInt8(ascii: "'"): raw("&#39;")
            default: bytes.append(byte)
            }
        }
    }

    /// A Prometheus label value, inside its quotes. The text format 0.0.4:
    /// > label_value can be any sequence of UTF-8 characters, but the backslash (\), double-quote ("), and
    /// > line feed (\n) characters have to be escaped as \\, \", and \n, respectively.
    mutating func labelValue(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): raw("\\\\")
            case UInt8(ascii: "\""): raw("\\\"")
            case 0x0A: raw("\\n")
            default: bytes.append(byte)
            }
        }
    }

    private func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
