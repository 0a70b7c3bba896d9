import ContactStore
import SQLite
import TestSupport
import Testing

@Suite("Schema migrations")
struct MigrationTests {
    @Test("a new store is migrated from empty to the current version with every table")
    func migratesFromEmpty() throws {
        let fixture = try StoreFixture()
        let raw = try fixture.rawDatabase()
        #expect(try raw.userVersion == Int32(ContactStore.schemaVersion))
        let tables = try raw.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            try $0.string(0)
        }
        #expect(tables == ["contacts", "history", "refused_items", "remote_items", "remotes", "sequence", "sync_runs"])
        #expect(try fixture.store.currentChangeSeq() == 0)
        #expect(try fixture.store.count() == 0)
    }

    @Test("an existing empty database file is migrated too")
    func migratesExistingEmptyFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("empty.sqlite")
        do {
            let raw = try Database(path: path)
            #expect(try raw.userVersion == 0)
        }
        let store = try ContactStore(path: path)
        try store.upsert(try makeCard(uid: "u1", name: "Ann"), reason: "test")
        #expect(try store.contact(uid: "u1")?.displayName == "Ann")
    }

    @Test("reopening a migrated store runs nothing again and keeps the data and the counter")
    func idempotentReopen() throws {
        let fixture = try StoreFixture()
        try fixture.store.upsert(try makeCard(uid: "u1", name: "Ann"), reason: "test")
        let before = try #require(try fixture.store.contact(uid: "u1"))

        let reopened = try fixture.reopen()
        let again = try fixture.reopen()
        #expect(try reopened.contact(uid: "u1") == before)
        #expect(try again.currentChangeSeq() == before.changeSeq)
        #expect(try fixture.rawDatabase().userVersion == Int32(ContactStore.schemaVersion))
        #expect(try fixture.rawDatabase().scalarInt64("SELECT count(*) FROM sequence") == 1)
    }

    @Test("a database written by a newer ContactBox is refused with a clear error")
    func refusesNewerSchema() throws {
        let fixture = try StoreFixture()
        try fixture.rawDatabase().setUserVersion(Int32(ContactStore.schemaVersion + 1))
        let error = try #require(throws: ContactStoreError.self) { try fixture.reopen() }
        #expect(error.code == .newerSchema)
        #expect(error.message.contains("schema version \(ContactStore.schemaVersion + 1)"))
    }
}
