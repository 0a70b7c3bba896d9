import SQLite

/// The store's schema, versioned with `PRAGMA user_version`.
///
/// Each migration is one SQL script; migration `n` (0-based) takes a database from version `n` to `n + 1`. Never
/// edit a shipped step: append a new one.
enum Schema {
    static let migrations: [String] = [
        version1, version2, version3, version4, version5, version6, version7, version8, version9, version10,
        version11,
    ]

    static var currentVersion: Int32 { Int32(migrations.count) }

    /// Brings the database up to `currentVersion`, one step per transaction, and refuses a newer database.
    static func migrate(_ db: Database) throws {
        try checkNotNewer(db)
        while try db.userVersion < currentVersion {
            try db.inTransaction {
                // Read again inside the write lock: another process may have migrated since the first read.
                let version = try db.userVersion
                try checkNotNewer(db)
                if version < currentVersion {
                    try db.execute(migrations[Int(version)])
                    // user_version lives in the database header, which is written by the same transaction.
                    try db.setUserVersion(version + 1)
                }
                return .commit
            }
        }
    }

    static func checkNotNewer(_ db: Database) throws {
        let version = try db.userVersion
        if version > currentVersion || version < 0 {
            throw ContactStoreError(
                .newerSchema,
                "database \(db.path) has schema version \(version), this ContactBox knows up to \(currentVersion);"
                    + " update ContactBox instead of opening it with an older one")
        }
    }

    private static let version1 = """
        -- The local change sequence: one row whose value only ever grows. A counter kept apart from the contacts
        -- (rather than max(change_seq)) never goes back, even when the row holding the largest value changes again.
        CREATE TABLE sequence (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            value INTEGER NOT NULL
        );
        INSERT INTO sequence (id, value) VALUES (1, 0);

        CREATE TABLE remotes (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('carddav', 'vdir')),
            url TEXT NOT NULL,
            sync_token TEXT,
            created_at INTEGER NOT NULL
        );

        -- One row per UID, live or tombstone: identity is the UID, never the content.
        CREATE TABLE contacts (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            vcard TEXT NOT NULL,
            hash TEXT NOT NULL,
            display_name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            changed_at INTEGER NOT NULL,
            change_seq INTEGER NOT NULL UNIQUE,  -- its UNIQUE index also serves changes(since:)
            deleted INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1))
        );
        -- Duplicate detection looks only among live rows; partial indexes stay small and exact.
        CREATE INDEX contacts_live_hash ON contacts (hash) WHERE deleted = 0;
        CREATE INDEX contacts_live_name ON contacts (display_name COLLATE NOCASE, id) WHERE deleted = 0;

        -- Every overwritten or deleted version: nothing is destroyed without a copy here.
        CREATE TABLE history (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL,
            vcard TEXT NOT NULL,
            hash TEXT NOT NULL,
            reason TEXT NOT NULL,
            recorded_at INTEGER NOT NULL,
            remote_id INTEGER REFERENCES remotes (id) ON DELETE SET NULL
        );
        CREATE INDEX history_uid ON history (uid, id);
        -- Without it, deleting a remote scans the whole history to apply ON DELETE SET NULL.
        CREATE INDEX history_remote ON history (remote_id) WHERE remote_id IS NOT NULL;

        -- What both sides looked like after the last successful sync, per remote and UID (the three-way base).
        CREATE TABLE remote_items (
            remote_id INTEGER NOT NULL REFERENCES remotes (id) ON DELETE CASCADE,
            uid TEXT NOT NULL,
            href TEXT NOT NULL,
            etag TEXT,
            hash TEXT NOT NULL,
            PRIMARY KEY (remote_id, uid),
            UNIQUE (remote_id, href)
        ) WITHOUT ROWID;

        -- The sync journal: a run without finished_at did not finish (interrupted or still running).
        CREATE TABLE sync_runs (
            id INTEGER PRIMARY KEY,
            remote_id INTEGER REFERENCES remotes (id) ON DELETE SET NULL,
            started_at INTEGER NOT NULL,
            finished_at INTEGER,
            outcome TEXT,
            uploaded INTEGER NOT NULL DEFAULT 0,
            downloaded INTEGER NOT NULL DEFAULT 0,
            updated INTEGER NOT NULL DEFAULT 0,
            deleted INTEGER NOT NULL DEFAULT 0,
            conflicts INTEGER NOT NULL DEFAULT 0,
            errors INTEGER NOT NULL DEFAULT 0,
            message TEXT
        );
        CREATE INDEX sync_runs_remote ON sync_runs (remote_id, id);
        """

    private static let version2 = """
        -- Per remote: every local change with a change_seq at or below this has been synced to the remote, so a
        -- sync looks only at later ones (change detection is incremental on both sides: Docs/architecture.md).
        ALTER TABLE remotes ADD COLUMN synced_seq INTEGER NOT NULL DEFAULT 0;
        -- What discovery found for a CardDAV remote (the address book's URL, "sync" and "4.0" when supported), so
        -- that a sync with nothing to do is one request, not a discovery walk.
        ALTER TABLE remotes ADD COLUMN book_url TEXT;
        ALTER TABLE remotes ADD COLUMN capabilities TEXT;
        """

    private static let version3 = """
        -- Items this client created on the remote after the sync token it holds. A server may leave an item that
        -- was created and deleted after a token out of the changes since that token (Xandikos does), so the next
        -- incremental listing looks for each of them by name: 1, created in this or the last run; 2, to be found in
        -- this run's listing, else it was deleted; 0, covered by the stored token.
        ALTER TABLE remote_items ADD COLUMN created_here INTEGER NOT NULL DEFAULT 0;
        -- Every listing looks for them: a partial index keeps that from scanning every item of the remote.
        CREATE INDEX remote_items_created ON remote_items (remote_id, created_here, href) WHERE created_here <> 0;
        -- How many writes the remote took at once without refusing (423, 429, 503), learned per remote.
        ALTER TABLE remotes ADD COLUMN write_concurrency INTEGER;
        -- The local version of a contact a remote refused (400, 403, 413, 415, 422), with the server's reason: it is
        -- reported once, and sent again only when the contact changes.
        CREATE TABLE refused_items (
            remote_id INTEGER NOT NULL REFERENCES remotes (id) ON DELETE CASCADE,
            uid TEXT NOT NULL,
            hash TEXT NOT NULL,
            reason TEXT NOT NULL,
            refused_at INTEGER NOT NULL,
            PRIMARY KEY (remote_id, uid)
        ) WITHOUT ROWID;
        """

    private static let version4 = """
        -- Every change belongs to a run: a sync run with one remote (kind 'sync'), or a local operation (import,
        -- delete, edit, restore, undo) with no remote. A run's history rows are what it changed, so it can be undone.
        ALTER TABLE sync_runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'sync';
        -- What a local operation was asked to do ("undo of run 12", "as of 2026-11-23 16:05"), for people.
        ALTER TABLE sync_runs ADD COLUMN note TEXT;
        -- What a history row records. 'updated' and 'deleted': vcard is the live version just before the change;
        -- 'created': the contact was not live before (a new UID, or a tombstone revived), vcard and hash are empty;
        -- 'archived': a version that never was the contact (a conflict's loser, a renamed import), no state change.
        ALTER TABLE history ADD COLUMN kind TEXT NOT NULL DEFAULT 'updated'
            CHECK (kind IN ('created', 'updated', 'deleted', 'archived'));
        ALTER TABLE history ADD COLUMN run_id INTEGER REFERENCES sync_runs (id) ON DELETE SET NULL;
        -- Rows from before version 4 name their cause only in the reason: deletions said so, and a conflict's loser
        -- or a renamed import never was the contact's state (a v3 conflict whose remote side won is kept as such).
        UPDATE history SET kind = 'deleted' WHERE reason LIKE 'deleted%';
        UPDATE history SET kind = 'archived' WHERE reason = 'import-duplicate-uid' OR reason LIKE 'conflict-lost:%';
        -- What one run changed, UID by UID (undo), and the first change of a UID after a time (restore as of a time).
        CREATE INDEX history_run ON history (run_id, uid, id) WHERE run_id IS NOT NULL;
        CREATE INDEX history_uid_time ON history (uid, recorded_at, id) WHERE kind <> 'archived';
        -- Retention prunes the oldest rows first.
        CREATE INDEX history_time ON history (recorded_at, id);
        """

    private static let version5 = """
        -- Retention's own record, one row. counted_through and max_versions: after the last complete pass by count,
        -- every UID with a history row up to counted_through had at most max_versions rows (NULL: no such pass
        -- yet), so the next pass looks only at the UIDs of later rows instead of walking the whole history.
        -- pruned_before: the newest time of a row retention removed (0: none), before which `as of` a time may
        -- miss versions.
        CREATE TABLE retention (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            counted_through INTEGER NOT NULL DEFAULT 0,
            max_versions INTEGER,
            pruned_before INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO retention (id) VALUES (1);
        """

    private static let version6 = """
        -- Fewer trees a change goes into at random. A download settles items in href order; where hrefs are not
        -- UIDs (a folder, most clouds), every tree keyed by UID takes its rows at random, and once such trees
        -- outgrow the page cache each insert reads and writes a page (Docs/servers.md, "Trees keyed by UID").
        -- Import's duplicate lookup: the first 16 hex digits of the hash (64 bits) find the candidates, the whole
        -- hash decides. A quarter of the tree of whole hashes, which every new contact goes into at random.
        DROP INDEX contacts_live_hash;
        CREATE INDEX contacts_live_hash ON contacts (substr(hash, 1, 16)) WHERE deleted = 0;
        -- As of a time reads the few rows of one UID through history_uid instead of a tree of its own.
        DROP INDEX history_uid_time;
        -- What one run changed, in the order it changed it: appended to, whatever the UIDs.
        DROP INDEX history_run;
        CREATE INDEX history_run ON history (run_id, id) WHERE run_id IS NOT NULL;
        -- The saved item states in a table appended to, with its two keys as indexes: as a WITHOUT ROWID table
        -- keyed by UID, the whole row (href, ETag, hash: about 270 bytes) went into a random leaf.
        CREATE TABLE remote_items_v6 (
            id INTEGER PRIMARY KEY,
            remote_id INTEGER NOT NULL REFERENCES remotes (id) ON DELETE CASCADE,
            uid TEXT NOT NULL,
            href TEXT NOT NULL,
            etag TEXT,
            hash TEXT NOT NULL,
            created_here INTEGER NOT NULL DEFAULT 0,
            UNIQUE (remote_id, uid),
            UNIQUE (remote_id, href)
        );
        INSERT INTO remote_items_v6 (remote_id, uid, href, etag, hash, created_here)
        SELECT remote_id, uid, href, etag, hash, created_here FROM remote_items ORDER BY remote_id, uid;
        DROP TABLE remote_items;
        ALTER TABLE remote_items_v6 RENAME TO remote_items;
        CREATE INDEX remote_items_created ON remote_items (remote_id, created_here, href) WHERE created_here <> 0;
        """
    private static let version7 = """
        -- What a server made of a card it was sent, where the read-back after a write found something else
        -- (Docs/architecture.md, "What a server does to a card"): the version sent (the store's), the hash of the
        -- server's copy of it, and what the server changed, in words. The server's copy stands for the version sent
        -- on that remote, so it is never read back as an edit; the row goes once a version arrives intact.
        CREATE TABLE damaged_items (
            remote_id INTEGER NOT NULL REFERENCES remotes (id) ON DELETE CASCADE,
            uid TEXT NOT NULL,
            hash TEXT NOT NULL,
            remote_hash TEXT NOT NULL,
            damage TEXT NOT NULL,
            damaged_at INTEGER NOT NULL,
            PRIMARY KEY (remote_id, uid)
        ) WITHOUT ROWID;
        -- The form in which a remote keeps what it is sent intact, learned from a damaged write that came back
        -- intact when sent again: "rev" (with a REV), "3.0" (in vCard 3.0), or both, space-separated.
        ALTER TABLE remotes ADD COLUMN write_form TEXT;
        -- The content hash reads a 4.0 card in its 3.0 form from this version on (Docs/vcard.md): the hashes of a
        -- store written before are worked out anew, a chunk of contacts at a time, by the first open that may write
        -- (`ContactStore.rehashIfPending`). next_id: the last contact id done; the row goes when all are.
        CREATE TABLE rehash_pending (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            next_id INTEGER NOT NULL
        );
        INSERT INTO rehash_pending (id, next_id) SELECT 1, 0 WHERE EXISTS (SELECT 1 FROM contacts);
        """

    private static let version8 = """
        -- Texts larger than CardText.spoolThreshold (a card with a photo of megabytes), one row each, written, read
        -- and copied in pieces (incremental blob I/O, SQLite.Database+Blob) by `ContactStore+Texts.swift`. Not in
        -- contacts.vcard or history.vcard: a statement that writes a row builds the whole record in SQLite's heap,
        -- so every UPDATE of such a row (a tombstone, a new hash) would hold the text whole, and a zeroblob stays
        -- small only as a record's last column. Here the text is the one column, and its row is never updated.
        CREATE TABLE texts (
            id INTEGER PRIMARY KEY,
            text BLOB NOT NULL
        );
        -- Where a row's text is when it is in `texts` (its vcard is then empty); NULL: in vcard. Each text belongs
        -- to one row, and goes with it (a history copy is a text of its own).
        ALTER TABLE contacts ADD COLUMN text_id INTEGER;
        ALTER TABLE history ADD COLUMN text_id INTEGER;
        CREATE TRIGGER contacts_text_replaced AFTER UPDATE OF text_id ON contacts
        WHEN old.text_id IS NOT NULL AND old.text_id IS NOT new.text_id
        BEGIN DELETE FROM texts WHERE id = old.text_id; END;
        CREATE TRIGGER contacts_text_deleted AFTER DELETE ON contacts WHEN old.text_id IS NOT NULL
        BEGIN DELETE FROM texts WHERE id = old.text_id; END;
        CREATE TRIGGER history_text_deleted AFTER DELETE ON history WHEN old.text_id IS NOT NULL
        BEGIN DELETE FROM texts WHERE id = old.text_id; END;
        """

    private static let version9 = """
        -- What a search looks in (`SearchKey`, `ContactStore+Search.swift`): search_text, the display name, ORG and
        -- EMAILs lower-cased; search_phones, the digits of each TEL, space-separated. NULL for a tombstone, and for
        -- a live contact of an older store until the first open that may write has filled it in, a chunk at a
        -- time (`ContactStore.fillSearchKeysIfPending`; search_pending.next_id: the last contact id done).
        ALTER TABLE contacts ADD COLUMN search_text TEXT;
        ALTER TABLE contacts ADD COLUMN search_phones TEXT;
        -- The keys in the name index: a search walks it in name order and reads a contact's row only when its
        -- keys match, so a term that matches nothing reads the index, not every row with its card.
        DROP INDEX contacts_live_name;
        CREATE INDEX contacts_live_name ON contacts (display_name COLLATE NOCASE, id, search_text, search_phones)
        WHERE deleted = 0;
        -- The trash: tombstones, newest deletion first (a tombstone's changed_at is its deletion's time).
        CREATE INDEX contacts_deleted ON contacts (changed_at, id) WHERE deleted = 1;
        CREATE TABLE search_pending (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            next_id INTEGER NOT NULL
        );
        INSERT INTO search_pending (id, next_id) SELECT 1, 0 WHERE EXISTS (SELECT 1 FROM contacts);
        """

    private static let version10 = """
        -- A list's line (`ListLine`): the first phone and email, and whether the photo is an image. NULL for a
        -- tombstone, and (list_photo) for a live contact of an older store until the fill-in has reached it.
        ALTER TABLE contacts ADD COLUMN list_phone TEXT;
        ALTER TABLE contacts ADD COLUMN list_email TEXT;
        ALTER TABLE contacts ADD COLUMN list_photo INTEGER;
        -- Every column a list's page shows, so that a page (100 neighbours in the index) reads the index alone: a
        -- row's columns after its card are read through the card's overflow pages, a photo's tens of kilobytes.
        -- `deleted` too: SQLite 3.40 reads the row for a column of the WHERE that the index does not hold, even
        -- the partial index's own condition.
        DROP INDEX contacts_live_name;
        CREATE INDEX contacts_live_name ON contacts (
            display_name COLLATE NOCASE, id, search_text, search_phones, uid, hash, change_seq, changed_at,
            list_phone, list_email, list_photo, deleted
        ) WHERE deleted = 0;
        -- The search keys of each live contact (rowid: contacts.id) in a trigram index, for words of three
        -- characters or more that few contacts hold: it finds them without walking the whole name index. Kept by
        -- the triggers below, whatever writes a contact; name is the display name, to order the matches by. The
        -- keys are lower-cased already (case_sensitive 1: no folding of its own, so it matches what instr() does).
        CREATE VIRTUAL TABLE contacts_search USING fts5 (
            words, digits, name UNINDEXED, tokenize = 'trigram case_sensitive 1'
        );
        CREATE TRIGGER contacts_search_inserted AFTER INSERT ON contacts
        WHEN new.deleted = 0 AND new.search_text IS NOT NULL
        BEGIN
            INSERT INTO contacts_search (rowid, words, digits, name)
            VALUES (new.id, new.search_text, new.search_phones, new.display_name);
        END;
        CREATE TRIGGER contacts_search_updated AFTER UPDATE OF search_text, search_phones, display_name, deleted
        ON contacts
        BEGIN
            DELETE FROM contacts_search WHERE rowid = old.id;
            INSERT INTO contacts_search (rowid, words, digits, name)
            SELECT new.id, new.search_text, new.search_phones, new.display_name
            WHERE new.deleted = 0 AND new.search_text IS NOT NULL;
        END;
        CREATE TRIGGER contacts_search_deleted AFTER DELETE ON contacts
        BEGIN
            DELETE FROM contacts_search WHERE rowid = old.id;
        END;
        -- The lines, and the trigram index, of the contacts there are: the fill-in of search keys again, from the
        -- first contact (it writes the line with the keys, and the triggers fill the index).
        INSERT OR REPLACE INTO search_pending (id, next_id) SELECT 1, 0 WHERE EXISTS (SELECT 1 FROM contacts);
        """

    private static let version11 = """
        -- The stretches of changes the box dated while its clock was not yet set (ContactStore+Clock.swift): in one
        -- boot, at one reading of the boot's start (ClockStatus.bootStart). The contacts changed after seq_after,
        -- the history rows after history_after and the runs after runs_after, up to the *_to columns (NULL: the
        -- stretch is open, to this day), were dated by that clock. When the clock is set in the same boot, their
        -- times are moved by the difference, kept in corrected; a stretch of another boot stays uncorrected: its
        -- times are unsure.
        CREATE TABLE clock_unset (
            id INTEGER PRIMARY KEY,
            boot TEXT NOT NULL,
            boot_start INTEGER NOT NULL,
            seq_after INTEGER NOT NULL,
            history_after INTEGER NOT NULL,
            runs_after INTEGER NOT NULL,
            seq_to INTEGER,
            history_to INTEGER,
            runs_to INTEGER,
            corrected INTEGER
        );
        """
}
