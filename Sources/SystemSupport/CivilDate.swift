/// A proleptic Gregorian date and time of day in UTC, from unix seconds.
public struct CivilDate: Equatable, Sendable {
    public var year: Int64
    public var month: Int64
    public var day: Int64
    public var hour: Int64
    public var minute: Int64
    public var second: Int64
}

extension CivilDate {
    /// Howard Hinnant's `civil_from_days` ("chrono-Compatible Low-Level Date Algorithms"): exact for every day,
    /// with eras of 400 years so the leap-year rules fall out of the arithmetic.
    public init(_ unixSeconds: Int64) {
        var days = unixSeconds / 86400
        var secondOfDay = unixSeconds % 86400
        if secondOfDay < 0 {
            secondOfDay += 86400
            days -= 1
        }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        hour = secondOfDay / 3600
        minute = secondOfDay % 3600 / 60
        second = secondOfDay % 60
    }
}
