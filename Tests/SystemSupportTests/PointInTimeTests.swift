import Testing

@testable import SystemSupport

@Suite("Times on the command line (--as-of)")
struct PointInTimeTests {
    /// A local clock one hour east of UTC, without daylight saving time.
    static func plusOne(_ civil: CivilDate) -> Int64? { civil.unixSeconds - 3_600 }
    static let now: Int64 = 1_795_000_000_000  // 2026-11-18T11:06:40Z

    func parse(_ text: String) throws -> Int64 {
        try PointInTime.parse(text, now: Self.now, localTime: Self.plusOne)
    }

    @Test("a date and time without an offset is local time, with or without seconds, T or a space")
    func localTimes() throws {
        let utc = CivilDate(year: 2026, month: 11, day: 23, hour: 15, minute: 5, second: 0).unixSeconds * 1_000
        #expect(try parse("2026-11-23T16:05") == utc)
        #expect(try parse("2026-11-23 16:05") == utc)
        #expect(try parse("2026-11-23T16:05:30") == utc + 30_000)
        #expect(try parse("2026-11-23") == utc - (16 * 60 + 5) * 60_000)
    }

    @Test("Z and offsets say which clock the time is on")
    func offsets() throws {
        let utc = CivilDate(year: 2026, month: 11, day: 23, hour: 16, minute: 5, second: 0).unixSeconds * 1_000
        #expect(try parse("2026-11-23T16:05Z") == utc)
        #expect(try parse("2026-11-23T16:05:00+02:00") == utc - 7_200_000)
        #expect(try parse("2026-11-23T16:05-0530") == utc + 19_800_000)
        #expect(try parse("2026-11-23T16:05+01") == utc - 3_600_000)
    }

    @Test("a span goes back from now")
    func spans() throws {
        #expect(try parse("90m") == Self.now - 5_400_000)
        #expect(try parse("2h") == Self.now - 7_200_000)
        #expect(try parse("3d") == Self.now - 3 * 86_400_000)
        #expect(try parse("1h30m") == Self.now - 5_400_000)
        #expect(try parse("1w") == Self.now - 604_800_000)
    }

    @Test(
        "anything else is refused with a message that shows both forms",
        arguments: [
            "", "yesterday", "2026-13-01T10:00", "2026-02-29T10:00", "2026-11-23T24:00", "2026-11-23T16:05+25:00",
            "2026-11-23T16", "90", "m", "2h-", "99999999999999999999d", "2026-11-23T16:05:60", "-2h",
            "2026-11-23T16:05:30.", "2026-11-23T16:05.5",
        ])
    func refused(_ text: String) {
        let error = #expect(throws: PointInTime.Invalid.self) { try parse(text) }
        #expect(error?.description.contains("90m, 2h, 3d") == true)
    }

    @Test("a leap day parses, and days_from_civil inverts the date of unix seconds")
    func leapDayAndInverse() throws {
        #expect(try parse("2028-02-29T00:00Z") == CivilDate(1_835_395_200).unixSeconds * 1_000)
        for seconds: Int64 in [0, 951_782_400, 1_795_000_000, -86_401, 4_102_444_800] {
            #expect(CivilDate(seconds).unixSeconds == seconds)
        }
        #expect(PointInTime.utcText(1_795_000_000_000) == "2026-11-18T11:06:40.000Z")
        #expect(try parse(PointInTime.utcText(1_795_000_000_123)) == 1_795_000_000_123)
        #expect(try parse("2026-11-18T11:06:40.5Z") == 1_795_000_000_500)
        #expect(try parse("2026-11-18T11:06:40.12345Z") == 1_795_000_000_123)
    }
}
