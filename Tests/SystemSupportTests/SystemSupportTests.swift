import Glibc
import Testing

@testable import SystemSupport

@Suite("Error texts, small files and UTC dates")
struct SystemSupportTests {
    @Test("Unix seconds become the UTC calendar date, leap days and times before 1970 included")
    func civilDates() {
        #expect(CivilDate(0) == CivilDate(year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0))
        #expect(CivilDate(1_700_000_000) == CivilDate(year: 2023, month: 11, day: 14, hour: 22, minute: 13, second: 20))
        #expect(CivilDate(951_782_400) == CivilDate(year: 2000, month: 2, day: 29, hour: 0, minute: 0, second: 0))
        #expect(CivilDate(-1) == CivilDate(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59))
        #expect(CivilDate(4_107_542_400) == CivilDate(year: 2100, month: 3, day: 1, hour: 0, minute: 0, second: 0))
    }

    @Test("A span becomes whole milliseconds rounded down, and saturates instead of trapping")
    func wholeMilliseconds() {
        #expect(Duration.milliseconds(250).wholeMilliseconds == 250)
        #expect(Duration.seconds(5).wholeMilliseconds == 5_000)
        #expect(Duration.microseconds(1_999).wholeMilliseconds == 1)
        #expect(Duration.microseconds(-1).wholeMilliseconds == -1)
        #expect(Duration.zero.wholeMilliseconds == 0)
        #expect(Duration.seconds(Int64.max).wholeMilliseconds == .max)
        #expect(Duration.seconds(Int64.min).wholeMilliseconds == .min)
    }

    @Test("A span becomes whole seconds rounded up, and saturates instead of trapping")
    func wholeSecondsRoundingUp() {
        #expect(Duration.seconds(2).wholeSecondsRoundingUp == 2)
        #expect(Duration.milliseconds(1_001).wholeSecondsRoundingUp == 2)
        #expect(Duration.milliseconds(1).wholeSecondsRoundingUp == 1)
        #expect(Duration.zero.wholeSecondsRoundingUp == 0)
        #expect(Duration.milliseconds(-1_500).wholeSecondsRoundingUp == -1)
        #expect((Duration.seconds(Int64.max) + .milliseconds(1)).wholeSecondsRoundingUp == .max)
    }

    @Test("An errno reads as strerror's words")
    func errorText() {
        #expect(SystemError.text(ENOENT) == "No such file or directory")
        #expect(SystemError(EACCES).description == "Permission denied")
    }

    @Test("A small file is read whole; a larger one, a folder or a FIFO is refused without blocking")
    func smallFiles() throws {
        let folder = "/tmp/contactbox-systemsupport-\(getpid())"
        mkdir(folder, 0o700)
        defer {
            for name in ["small", "fifo"] { unlink(folder + "/" + name) }
            rmdir(folder)
        }
        let small = folder + "/small"
        let file = try #require(fopen(small, "w"))
        fputs("twelve bytes", file)
        fclose(file)
        #expect(try SmallFile.read(small, limit: 12) == Array("twelve bytes".utf8))
        #expect(SmallFile.size(small) == 12)
        #expect(throws: SmallFile.Failure.self) { try SmallFile.read(small, limit: 11) }
        #expect(throws: SmallFile.Failure.self) { try SmallFile.read(folder, limit: 100) }
        #expect(SmallFile.isDirectory(folder) && !SmallFile.isDirectory(small))
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        #expect(throws: SmallFile.Failure.self) { try SmallFile.read(folder + "/fifo", limit: 100) }
        #expect(!SmallFile.exists(folder + "/missing"))
    }

    @Test("A /proc file, which says it is empty, is read all the same")
    func procFiles() throws {
        let stat = try #require(SmallFile.text("/proc/self/stat"))
        #expect(stat.hasPrefix("\(getpid()) ("))
    }
}
