import ContactStore
import SQLite
import TestSupport
import Testing

/// The reading commands open the store read-only: it is never written, never migrated, and can be read where it
/// cannot be written. (The read-only mount itself is exercised by ContactboxTests' ReadOnlyStoreCommandTests.)
@Suite("A store opened only to read")
struct ReadOnlyStoreTests {
    @Test("reads what is there, refuses every write, and leaves the file as it was")
    func readsAndNeverWrites() throws {
        let fixture = try StoreFixture()
        try fixture.store.upsert(try makeCard(uid: "u1", name: "Ann"), reason: "test")
        let reader = try ContactStore(readingOnly: fixture.path)
        #expect(reader.isReadOnly)
        #expect(try reader.contact(uid: "u1")?.displayName == "Ann")
        #expect(try reader.check().isEmpty)
        #expect(throws: (any Error).self) { try reader.upsert(try makeCard(uid: "u2", name: "Bob"), reason: "test") }
        #expect(try fixture.store.count() == 1)
    }

    @Test("an older schema is not migrated: refused, saying how to migrate it")
    func olderSchemaRefused() throws {
        let fixture = try StoreFixture()
        try fixture.rawDatabase().setUserVersion(Int32(ContactStore.schemaVersion - 1))
        let error = try #require(throws: ContactStoreError.self) { try ContactStore(readingOnly: fixture.path) }
        #expect(error.code == .olderSchema)
        #expect(error.message.contains("not migrated") && error.message.contains("import, sync"))
        #expect(try fixture.rawDatabase().userVersion == Int32(ContactStore.schemaVersion - 1))
    }

    @Test("a newer schema is refused as before")
    func newerSchemaRefused() throws {
        let fixture = try StoreFixture()
        try fixture.rawDatabase().setUserVersion(Int32(ContactStore.schemaVersion + 1))
        let error = try #require(throws: ContactStoreError.self) { try ContactStore(readingOnly: fixture.path) }
        #expect(error.code == .newerSchema)
    }

    @Test("a missing file is not created")
    func missingFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("absent.sqlite")
        #expect(throws: (any Error).self) { try ContactStore(readingOnly: path) }
        #expect(directoryEntries(directory.path).isEmpty)
    }
}
