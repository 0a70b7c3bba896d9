import SystemSupport

/// Unix seconds as people read them on the page as served. The box knows no time zone worth trusting (and we do
/// not load one), so the server writes UTC; the page's script then rewrites each time in the browser's own zone.
enum UnixTime {
    /// "2024-05-01 09:05 UTC".
    static func writeUTC(_ seconds: Int64, into writer: inout ByteWriter) {
        let date = CivilDate(seconds)
        writeDay(date, into: &writer)
        writer.raw(" ")
        writeClock(date, withSeconds: false, into: &writer)
        writer.raw(" UTC")
    }

    /// "2024-05-01 09:05 UTC", for a sentence built as a String.
    static func utcText(_ seconds: Int64) -> String {
        var writer = ByteWriter(capacity: 24)
        writeUTC(seconds, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// "2024-05-01T09:05:00Z", for a `<time datetime>` attribute (HTML's "valid global date and time string").
    static func writeISO(_ seconds: Int64, into writer: inout ByteWriter) {
        let date = CivilDate(seconds)
        writeDay(date, into: &writer)
        writer.raw("T")
        writeClock(date, withSeconds: true, into: &writer)
        writer.raw("Z")
    }

    /// "2024-05-01".
    private static func writeDay(_ date: CivilDate, into writer: inout ByteWriter) {
        writer.decimal(date.year)
        writer.raw("-")
        twoDigits(date.month, into: &writer)
        writer.raw("-")
        twoDigits(date.day, into: &writer)
    }

    /// "09:05" or "09:05:00".
    private static func writeClock(_ date: CivilDate, withSeconds: Bool, into writer: inout ByteWriter) {
        twoDigits(date.hour, into: &writer)
        writer.raw(":")
        twoDigits(date.minute, into: &writer)
        if withSeconds {
            writer.raw(":")
            twoDigits(date.second, into: &writer)
        }
    }

    /// "just now", "12 min ago", "in 3 h", "2 days ago": the same words as the page's script uses.
    static func writeRelative(_ seconds: Int64, now: Int64, into writer: inout ByteWriter) {
        let difference = now - seconds
        let distance = difference.magnitude
        if distance < 45 {
            writer.raw("just now")
            return
        }
        if difference < 0 { writer.raw("in ") }
        if distance < 90 * 60 {
            writer.decimal(Int64((distance + 30) / 60))
            writer.raw(" min")
        } else if distance < 36 * 3600 {
            writer.decimal(Int64((distance + 1800) / 3600))
            writer.raw(" h")
        } else {
            writer.decimal(Int64((distance + 43200) / 86400))
            writer.raw(" days")
        }
        if difference > 0 { writer.raw(" ago") }
    }

    private static func twoDigits(_ value: Int64, into writer: inout ByteWriter) {
        if value < 10 { writer.raw("0") }
        writer.decimal(value)
    }
}
