import Testing

@testable import Config

@Suite("Duration strings")
struct DurationTests {
    @Test(
        "Durations read as a number and a unit, or several",
        arguments: [
            ("30s", 30), ("15m", 900), ("1h", 3600), ("1d", 86_400), ("1h30m", 5400), ("90m", 5400), ("2d12h", 216_000),
        ])
    func parses(text: String, seconds: Int) {
        #expect(Configuration.duration(text) == .seconds(seconds))
    }

    @Test(
        "Anything else is not a duration",
        arguments: [
            "", "15", "m", "15 m", "15min", "-5m", "0s", "0m0s", "1.5h", "15M", "1w", "99999999999d", "3661d", " 1h",
        ])
    func refuses(text: String) {
        #expect(Configuration.duration(text) == nil)
    }

    @Test(
        "Seconds are written back in the shortest form, which reads back the same",
        arguments: [
            (30, "30s"), (900, "15m"), (5400, "1h30m"), (86_400, "1d"), (90_061, "1d1h1m1s"),
        ])
    func writes(seconds: Int, text: String) {
        #expect(Configuration.durationText(.seconds(seconds)) == text)
        #expect(Configuration.duration(text) == .seconds(seconds))
    }
}
