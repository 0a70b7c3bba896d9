import Glibc

/// A moment given on the command line (`--as-of`): an ISO 8601 date and time, in local time unless it carries an
/// offset or `Z`, or a span back from now. The one parser of such times; its tests are in SystemSupportTests.
///
/// - `2026-11-23T16:05`, `2026-11-23T16:05:30`, `2026-11-23T16:05:30.250`, `2026-11-23 16:05` (a space for the T), `2026-11-23` (midnight);
/// - with `Z`, `+01:00`, `-0500` or `+01` after the time: that offset instead of local time;
/// - `90m`, `2h`, `3d`, `1w`, `45s`, or several together (`1h30m`): that long before now.
public enum PointInTime {
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Unix milliseconds for `text`. `now` is unix milliseconds; `localTime` turns a date and time on the local
    /// clock into unix seconds (injectable for tests; nil when it does not exist there).
    public static func parse(
        _ text: String, now: Int64, localTime: (CivilDate) -> Int64? = PointInTime.systemLocalTime
    ) throws(Invalid) -> Int64 {
        let trimmed = text.trimmingWhitespace
        // A century back is plenty, and keeps the arithmetic far from overflow.
        if let span = Duration(spanText: trimmed, units: "smhdw", atMost: .seconds(100 * 366 * 86_400)) {
            return now - span.wholeMilliseconds
        }
        guard let (civil, fraction, offset) = dateTime(trimmed) else {
            throw Invalid(
                description: "'\(text)' is no time: give an ISO 8601 date and time (2026-11-23T16:05, local time"
                    + " unless it ends in Z or an offset such as +01:00) or a span back from now (90m, 2h, 3d)")
        }
        if let offset {
            return (civil.unixSeconds - offset) * 1_000 + fraction
        }
        guard let seconds = localTime(civil) else {
            throw Invalid(description: "'\(text)' does not exist in local time (a clock change skips it)")
        }
        return seconds * 1_000 + fraction
    }

    /// mktime(3) with the zone from `TZ` or /etc/localtime; daylight saving time found by the C library.
    public static func systemLocalTime(_ civil: CivilDate) -> Int64? {
        var parts = tm()
        parts.tm_year = Int32(truncatingIfNeeded: civil.year - 1900)
        parts.tm_mon = Int32(truncatingIfNeeded: civil.month - 1)
        parts.tm_mday = Int32(truncatingIfNeeded: civil.day)
        parts.tm_hour = Int32(truncatingIfNeeded: civil.hour)
        parts.tm_min = Int32(truncatingIfNeeded: civil.minute)
        parts.tm_sec = Int32(truncatingIfNeeded: civil.second)
        parts.tm_isdst = -1
        let seconds = mktime(&parts)
        return seconds == -1 ? nil : Int64(seconds)
    }

    /// `millis` as local time, `2026-11-23 16:05:30`, for people.
    public static func localText(_ millis: Int64) -> String {
        var seconds = time_t(millis / 1_000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return utcText(millis) }
        let civil = CivilDate(
            year: Int64(parts.tm_year) + 1900, month: Int64(parts.tm_mon) + 1, day: Int64(parts.tm_mday),
            hour: Int64(parts.tm_hour), minute: Int64(parts.tm_min), second: Int64(parts.tm_sec))
        return civil.text(separator: " ")
    }

    /// `millis` in UTC, `2026-11-23T15:05:30.250Z`, for scripts (and `--as-of`, which reads it back exactly).
    public static func utcText(_ millis: Int64) -> String {
        let seconds = millis >= 0 ? millis / 1_000 : (millis - 999) / 1_000
        let fraction = millis - seconds * 1_000
        let digits = String(fraction + 1_000).dropFirst()
        return CivilDate(seconds).text(separator: "T") + "." + digits + "Z"
    }

    /// The date and time, its milliseconds, and the offset east of UTC in seconds when one is given.
    private static func dateTime(_ text: String) -> (CivilDate, Int64, Int64?)? {
        let bytes = Array(text.utf8)
        var reader = DigitReader(bytes: bytes)
        guard let year = reader.number(4), reader.skip("-"), let month = reader.number(2), reader.skip("-"),
            let day = reader.number(2)
        else { return nil }
        var hour: Int64 = 0
        var minute: Int64 = 0
        var second: Int64 = 0
        var fraction: Int64 = 0
        if reader.skip("T") || reader.skip("t") || reader.skip(" ") {
            guard let h = reader.number(2), reader.skip(":"), let m = reader.number(2) else { return nil }
            hour = h
            minute = m
            if reader.skip(":") {
                guard let s = reader.number(2) else { return nil }
                second = s
                if reader.skip(".") || reader.skip(",") {
                    // Milliseconds: the digits after the third are read and dropped.
                    var digits = 0
                    while let digit = reader.number(1) {
                        if digits < 3 { fraction = fraction * 10 + digit }
                        digits += 1
                    }
                    guard digits > 0 else { return nil }
                    for _ in digits..<max(digits, 3) { fraction *= 10 }
                }
            }
        }
        var offset: Int64?
        if reader.skip("Z") || reader.skip("z") {
            offset = 0
        } else if let sign: Int64 = reader.skip("+") ? 1 : reader.skip("-") ? -1 : nil {
            guard let hours = reader.number(2), hours <= 23 else { return nil }
            var minutes: Int64 = 0
            _ = reader.skip(":")
            if !reader.atEnd {
                guard let m = reader.number(2), m <= 59 else { return nil }
                minutes = m
            }
            offset = sign * (hours * 3_600 + minutes * 60)
        }
        guard reader.atEnd, (1...12).contains(month), (1...CivilDate.days(inMonth: month, of: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        return (
            CivilDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second), fraction, offset
        )
    }
}

/// Fixed-width decimal fields and separators, left to right.
private struct DigitReader {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index == bytes.count }

    mutating func number(_ width: Int) -> Int64? {
        guard index + width <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<index + width] {
            guard let digit = byte.decimalDigit else { return nil }
            value = value * 10 + digit
        }
        index += width
        return value
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }
}

extension UInt8 {
    fileprivate var decimalDigit: Int64? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) ? Int64(self - UInt8(ascii: "0")) : nil
    }
}

extension CivilDate {
    /// Howard Hinnant's `days_from_civil`, the inverse of `init(_:)`: seconds since 1970-01-01T00:00:00Z.
    public var unixSeconds: Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }

    static func days(inMonth month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `2026-11-23<separator>16:05:30`.
    func text(separator: String) -> String {
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))\(separator)\(two(hour)):\(two(minute)):\(two(second))"
    }
}
