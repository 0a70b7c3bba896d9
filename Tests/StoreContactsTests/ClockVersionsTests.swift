import ContactStore
import SystemSupport
import Testing

@testable import StoreContacts

@Suite("A contact's versions and a clock not set")
struct ClockVersionsTests {
    @Test("a version dated in a boot that ended before its clock was set is marked unsure")
    func unsureVersionIsMarked() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.ada])
        // A boot whose clock was never set wrote the next version; this process's boot is another.
        let unset = try ContactStore(
            path: fixture.path, now: { 1_600_000_000_000 },
            clock: { ClockStatus(synchronized: false, bootStart: 1_599_999_000_000, boot: "an-earlier-boot") })
        try unset.upsert(try card(Cards.ada.replacing("FN:Ada Lovelace", with: "FN:Ada L.")), reason: "edited")
        let versions = try fixture.backend.versions(uid: "apple-ada", before: nil, limit: 10).versions
        #expect(versions.map(\.timeUnsure) == [true, false])
    }
}
