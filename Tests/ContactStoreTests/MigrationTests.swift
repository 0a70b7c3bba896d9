import SQLite
import TestSupport
import Testing
import VCard

@testable import ContactStore

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
        #expect(
            tables == [
                "clock_unset", "contacts", "contacts_search", "contacts_search_config", "contacts_search_content",
                "contacts_search_data", "contacts_search_docsize", "contacts_search_idx", "damaged_items", "history",
                "refused_items", "rehash_pending", "remote_items", "remotes", "retention", "search_pending", "sequence",
                "sync_runs", "texts",
            ])
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

@Suite("Schema 4: a version-3 store is migrated")
struct SchemaFourMigrationTests {
    @Test("history rows of a v3 store get their kind from the reason, runs become syncs, and as-of works on them")
    func migratesVersionThree() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v3.sqlite")
        do {
            let raw = try Database(path: path)
            for script in Schema.migrations.prefix(3) { try raw.execute(script) }
            try raw.setUserVersion(3)
            try raw.execute(
                """
                INSERT INTO remotes (id, name, kind, url, created_at) VALUES (1, 'cloud', 'carddav', 'http://x', 1);
                INSERT INTO sync_runs (id, remote_id, started_at, finished_at, outcome) VALUES (1, 1, 10, 20, 'ok');
                UPDATE sequence SET value = 1;
                INSERT INTO contacts (uid, vcard, hash, display_name, created_at, changed_at, change_seq, deleted)
                VALUES ('a', 'BEGIN:VCARD\r\nVERSION:4.0\r\nUID:a\r\nFN:Now\r\nEND:VCARD\r\n', 'h2', 'Now', 5, 30, 1, 0);
                INSERT INTO history (uid, vcard, hash, reason, recorded_at, remote_id) VALUES
                    ('a', 'BEGIN:VCARD\r\nVERSION:4.0\r\nUID:a\r\nFN:Then\r\nEND:VCARD\r\n', 'h1', 'replaced by cloud', 30, 1),
                    ('a', 'x', 'h9', 'conflict-lost:cloud', 31, 1),
                    ('b', 'x', 'h8', 'deleted on cloud', 32, 1),
                    ('c', 'x', 'h7', 'import-duplicate-uid', 33, NULL);
                """)
        }
        let store = try ContactStore(path: path)
        #expect(try Database(path: path).userVersion == Int32(ContactStore.schemaVersion))
        #expect(try store.history(uid: "a").map(\.kind) == [.archived, .updated])
        #expect(try store.history(uid: "b").map(\.kind) == [.deleted])
        #expect(try store.history(uid: "c").map(\.kind) == [.archived])
        #expect(try store.syncRun(id: 1)?.kind == .sync)
        #expect(try name(store.state(uid: "a", at: 25)) == "Then")
        #expect(try name(store.state(uid: "a", at: 40)) == "Now")
        #expect(try store.state(uid: "a", at: 4) == .absent)
    }
}

@Suite("Schema 6: a version-5 store is migrated")
struct SchemaSixMigrationTests {
    @Test("saved item states, a run's undo and the state as of a time all survive the new trees")
    func migratesVersionFive() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v5.sqlite")
        do {
            let raw = try Database(path: path)
            for script in Schema.migrations.prefix(5) { try raw.execute(script) }
            try raw.setUserVersion(5)
            try raw.execute(
                """
                INSERT INTO remotes (id, name, kind, url, created_at) VALUES (1, 'cloud', 'carddav', 'http://x', 1);
                INSERT INTO sync_runs (id, remote_id, started_at, finished_at, outcome) VALUES (7, 1, 10, 20, 'ok');
                UPDATE sequence SET value = 2;
                INSERT INTO contacts (uid, vcard, hash, display_name, created_at, changed_at, change_seq, deleted)
                VALUES ('a', 'BEGIN:VCARD\r\nVERSION:4.0\r\nUID:a\r\nFN:Now\r\nEND:VCARD\r\n', 'h2', 'Now', 5, 15, 1, 0),
                    ('b', 'BEGIN:VCARD\r\nVERSION:4.0\r\nUID:b\r\nFN:Bea\r\nEND:VCARD\r\n', 'h3', 'Bea', 16, 16, 2, 0);
                INSERT INTO history (uid, vcard, hash, reason, recorded_at, remote_id, kind, run_id) VALUES
                    ('a', 'BEGIN:VCARD\r\nVERSION:4.0\r\nUID:a\r\nFN:Then\r\nEND:VCARD\r\n', 'h1', 'sync', 15, 1,
                        'updated', 7),
                    ('b', '', '', 'sync', 16, 1, 'created', 7);
                INSERT INTO remote_items (remote_id, uid, href, etag, hash, created_here) VALUES
                    (1, 'a', '/book/a.vcf', '"e1"', 'h2', 0), (1, 'b', '/book/b.vcf', '"e2"', 'h3', 1);
                """)
        }
        let store = try ContactStore(path: path)
        #expect(try Database(path: path).userVersion == Int32(ContactStore.schemaVersion))
        // The placeholder hashes written above are worked out anew (schema 7), and a remote's base that held a
        // contact's old hash takes its new one: SQLite's integrity and foreign key checks and the store's own pass.
        #expect(try store.check() == [])
        let bHash = try #require(try store.contact(uid: "b")).hash
        #expect(
            bHash == Card.stored("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:b\r\nFN:Bea\r\nEND:VCARD\r\n", uid: "b").contentHash
        )
        #expect(try Database(path: path).scalarInt64("SELECT count(*) FROM rehash_pending") == 0)
        let saved = RemoteItemState(remoteID: 1, uid: "b", href: "/book/b.vcf", etag: "\"e2\"", hash: bHash)
        #expect(try store.remoteItem(remoteID: 1, uid: "b") == saved)
        #expect(try store.remoteItem(remoteID: 1, href: "/book/a.vcf")?.uid == "a")
        let edited = RemoteItemState(remoteID: 1, uid: "a", href: "/book/a.vcf", etag: "\"e3\"", hash: "h4")
        try store.upsertRemoteItem(edited)
        #expect(try store.remoteItem(remoteID: 1, uid: "a")?.etag == "\"e3\"")
        #expect(try store.remoteItemCount(remoteID: 1) == 2)
        // created_here survived: the next listing settles b as removed when it does not list it.
        try store.beginListing()
        try store.settleListing(remoteID: 1, isFullListing: false)
        #expect(try store.listingHasRemoval("/book/b.vcf"))
        try store.endListing()
        #expect(try name(store.state(uid: "a", at: 14)) == "Then")
        #expect(try name(store.state(uid: "a", at: 15)) == "Now")
        let undo = try store.undo(run: 7)
        #expect(undo.reverted == 1 && undo.deleted == 1)
        #expect(try store.contact(uid: "a")?.displayName == "Then")
        #expect(try store.contact(uid: "b")?.deleted == true)
    }
}

@Suite("Schema 9: a version-8 store is given its search keys")
struct SchemaNineMigrationTests {
    static func card(_ index: Int) -> String {
        [
            "BEGIN:VCARD", "VERSION:4.0", "UID:u\(index)", "FN:Person \(index)", "ORG:Firm \(index % 7)",
            "EMAIL:p\(index)@example.org", "TEL:+49 30 \(100_000 + index)", "END:VCARD", "",
        ].joined(separator: "\r\n")
    }

    /// A version-8 store of 250 contacts (u0...u249), u3 a tombstone, as ContactBox 8 wrote it.
    static func versionEight(at path: String) throws {
        let raw = try Database(path: path)
        for script in Schema.migrations.prefix(8) { try raw.execute(script) }
        try raw.setUserVersion(8)
        try raw.execute("UPDATE sequence SET value = 250")
        for index in 0..<250 {
            let text = card(index)
            try raw.run(
                """
                INSERT INTO contacts (uid, vcard, hash, display_name, created_at, changed_at, change_seq, deleted)
                VALUES (?, ?, ?, ?, 1, 1, ?, ?)
                """, "u\(index)", text, Card.stored(text, uid: "u\(index)").contentHash, "Person \(index)", index + 1,
                index == 3 ? 1 : 0)
        }
    }

    func found(_ store: ContactStore, _ search: String) throws -> [String] {
        var uids: [String] = []
        var cursor: ContactCursor?
        while case let page = try store.contacts(after: cursor, limit: 100, search: search), let last = page.last {
            uids += page.map(\.uid)
            cursor = last.cursor
        }
        return uids.sorted()
    }

    @Test("the first open fills in every live contact's keys, a chunk at a time, and a search finds them")
    func fillsKeys() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v8.sqlite")
        try Self.versionEight(at: path)
        let store = try ContactStore(path: path)
        let raw = try Database(path: path)
        #expect(try raw.userVersion == Int32(ContactStore.schemaVersion))
        #expect(try raw.scalarInt64("SELECT count(*) FROM search_pending") == 0)
        #expect(try raw.scalarInt64("SELECT count(*) FROM contacts WHERE deleted = 0 AND search_text IS NULL") == 0)
        #expect(try raw.scalarInt64("SELECT count(*) FROM contacts WHERE deleted = 1 AND search_text IS NULL") == 1)
        #expect(try found(store, "P17@EXAMPLE") == ["u17"])
        #expect(try found(store, "30 100 042") == ["u42"])
        #expect(try found(store, "firm 6").count == 35)  // 6, 13, ... 244
        // Person 3 is deleted: Person 30 to 39.
        #expect(try found(store, "person 3") == (30..<40).map { "u\($0)" }.sorted())
        // Each live contact's line, and its keys in the trigram index, which a rare word's search takes.
        #expect(try raw.scalarInt64("SELECT count(*) FROM contacts WHERE deleted = 0 AND list_photo IS NULL") == 0)
        #expect(try raw.scalarInt64("SELECT count(*) FROM contacts_search") == 249)
        #expect(try store.contactLines(after: nil, search: "P17@EXAMPLE").map(\.uid) == ["u17"])
        #expect(try store.contactLines(after: nil, search: "person 3").count == 10)
        #expect(try store.check() == [])
    }

    @Test("an interrupted fill-in goes on from the last chunk it finished; until then a name still finds its contact")
    func resumes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v8.sqlite")
        try Self.versionEight(at: path)
        // The migration alone, and a fill-in that finished its first chunk (the contacts up to row id 100).
        do {
            let raw = try Database(path: path)
            try raw.execute(Schema.migrations[8])
            try raw.execute(Schema.migrations[9])
            try raw.execute(Schema.migrations[10])
            try raw.setUserVersion(11)
            try raw.execute("UPDATE search_pending SET next_id = 100")
        }
        // A reading command cannot fill them in: it finds what it can by name.
        let reader = try ContactStore(readingOnly: path)
        #expect(try found(reader, "PERSON 142") == ["u142"])
        #expect(try found(reader, "p142@") == [])

        let store = try ContactStore(path: path)
        let raw = try Database(path: path)
        #expect(try raw.scalarInt64("SELECT count(*) FROM search_pending") == 0)
        // The rows before the mark were not read again (here they were never filled: the mark says they were).
        #expect(try raw.scalarInt64("SELECT count(*) FROM contacts WHERE search_text IS NULL AND id <= 100") == 100)
        #expect(try raw.scalarInt64("SELECT count(*) FROM contacts WHERE search_text IS NULL AND id > 100") == 0)
        #expect(try found(store, "p142@") == ["u142"])
        // With none pending, a search reads the keys alone (here missing where the mark said done).
        #expect(try found(store, "p42@") == [])
        #expect(try found(store, "person 42") == [])
    }
}
