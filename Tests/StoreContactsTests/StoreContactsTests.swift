import ContactStore
import SQLite
import StatusServer
import Testing
import VCard

@testable import StoreContacts

@Suite("Contacts for the page: lists, one contact, its fields")
struct StoreContactsTests {
    @Test("a list goes page by page in name order, each contact once, and refuses a cursor it did not give")
    func listPaging() throws {
        let fixture = try BackendFixture()
        try fixture.importCards((0..<25).map { Cards.plain(uid: "p\($0)", name: "Person \(100 + $0)") })
        try fixture.importCards([Cards.ada, Cards.grace, Cards.bob])
        var names: [String] = []
        var cursor: String?
        repeat {
            let page = try fixture.backend.list(search: nil, after: cursor, limit: 10)
            #expect(page.contacts.count <= 10)
            names += page.contacts.map(\.name)
            cursor = page.next
        } while cursor != nil
        #expect(names.count == 28)
        #expect(Set(names).count == 28)
        #expect(names == names.sorted { $0.lowercased() < $1.lowercased() })
        #expect(names.first == "Ada Lovelace")

        for garbage in [
            "", "not a cursor!", "Yzox", PageCursor.encode(TrashCursor(deletedAt: 3, contactID: 3)),
            String(repeating: "A", count: 5000),
        ] {
            #expect(throws: ContactsError.self) { try fixture.backend.list(search: nil, after: garbage, limit: 10) }
            do {
                _ = try fixture.backend.list(search: nil, after: garbage, limit: 10)
            } catch {
                #expect(error.status == 400)
            }
        }
        for limit in [0, 101] {
            #expect(throws: ContactsError(status: 400, "limit \(limit) is outside 1 to 100")) {
                try fixture.backend.list(search: nil, after: nil, limit: limit)
            }
        }
    }

    @Test("a search keeps the contacts whose name holds it")
    func search() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.ada, Cards.grace, Cards.bob])
        let page = try fixture.backend.list(search: "hopper", after: nil, limit: 10)
        #expect(page.contacts.map(\.uid) == ["google-grace"])
        #expect(page.next == nil)
    }

    @Test("a summary has the name, the first phone and email, initials, and whether the photo is an image")
    func summaries() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([
            Cards.ada, Cards.bob, Cards.plain(uid: "nameless", name: "").replacing("FN:\r\n", with: ""),
        ])
        let page = try fixture.backend.list(search: nil, after: nil, limit: 10)
        let ada = try #require(page.contacts.first { $0.uid == "apple-ada" })
        #expect(ada.name == "Ada Lovelace")
        #expect(ada.phone == "+44 20 7946 0000")
        #expect(ada.email == "ada@example.org")
        #expect(ada.initials == "AL")
        #expect(ada.hasPhoto)
        let stored = try #require(try fixture.store.contact(uid: "apple-ada"))
        #expect(ada.hash == stored.hash && ada.changeSeq == stored.changeSeq && ada.changedAt == stored.changedAt)
        let bob = try #require(page.contacts.first { $0.uid == "v4-bob" })
        // The name as the card has it: the page escapes it.
        #expect(bob.name == "Bob <script>alert(1)</script>")
        #expect(bob.phone == "+44-20-1234")
        #expect(!bob.hasPhoto)
        let nameless = try #require(page.contacts.first { $0.uid == "nameless" })
        #expect(nameless.name == "nameless@example.org")
        #expect(nameless.initials == "N")
    }

    @Test("a list's line from the store's index is the one its card gives, for every card a store holds")
    func indexedSummaries() throws {
        let fixture = try BackendFixture()
        let odd = [
            // Folded lines, a group, escapes, a tel: URI, a data: URI photo, vCard 2.1's bare BASE64, a URL photo.
            "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:folded\r\nFN:Folded\r\nitem2.TEL;VALUE=uri:tel:+1-555-\r\n 0100\r\n"
                + "EMAIL;TYPE=\"work,pref\":a\\,b@example.org\r\nPHOTO:data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB\r\n"
                + "END:VCARD\r\n",
            "BEGIN:VCARD\r\nVERSION:2.1\r\nUID:old\r\nN:Old;Timer\r\nTEL;CELL:555\r\n"
                + "PHOTO;JPEG;BASE64:\r\n /9j/4AAQSkZJRgABAQ\r\n\r\nEND:VCARD\r\n",
            "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:url-photo\r\nFN:Url\r\nPHOTO;VALUE=uri:https://example.org/a.jpg\r\n"
                + "END:VCARD\r\n",
        ]
        try fixture.importCards([Cards.ada, Cards.grace, Cards.bob, Cards.family] + odd)
        let listed = try fixture.backend.list(search: nil, after: nil, limit: 100).contacts
        #expect(listed.count == 7)
        for summary in listed {
            let contact = try #require(try fixture.store.contact(uid: summary.uid))
            #expect(summary == CardView(text: contact.text, uid: contact.uid).summary(of: contact), "\(contact.uid)")
        }
        #expect(listed.first { $0.uid == "folded" }?.phone == "+1-555-0100")
        #expect(listed.first { $0.uid == "folded" }?.hasPhoto == true)
        #expect(listed.first { $0.uid == "url-photo" }?.hasPhoto == false)
    }

    @Test("initials take the first letters of the first and last words, in upper case, whatever the script")
    func initials() {
        #expect(CardView.initials("Ada Lovelace") == "AL")
        #expect(CardView.initials("ada king lovelace") == "AL")
        #expect(CardView.initials("Émile") == "É")
        #expect(CardView.initials("Ольга Петрова") == "ОП")
        #expect(CardView.initials("山田 太郎") == "山太")
        #expect(CardView.initials("(Ada) +44") == "A")
        #expect(CardView.initials("") == "?")
        #expect(CardView.initials("+44 20 7946") == "?")
        #expect(CardView.initials("straße") == "S")
    }

    @Test("one contact's fields are in words, in a page's order, with their labels")
    func fields() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.ada, Cards.bob, Cards.grace])
        let ada = try #require(try fixture.backend.contact(uid: "apple-ada"))
        #expect(!ada.deleted)
        #expect(
            ada.fields == [
                ContactField(kind: .name, value: "Ada Lovelace"),
                ContactField(kind: .phone, label: "mobile", value: "+44 20 7946 0000"),
                ContactField(kind: .phone, label: "Boat phone", value: "+44 20 7946 0001"),
                ContactField(kind: .email, label: "home", value: "ada@example.org"),
                ContactField(
                    kind: .address, label: "home", value: "12 St James's Square, London, SW1Y 4JH, United Kingdom"),
                ContactField(kind: .birthday, value: "10 December"),
                ContactField(kind: .anniversary, label: "anniversary", value: "12 June 2010"),
                ContactField(kind: .organisation, value: "Analytical Engines Ltd, Research"),
                ContactField(kind: .title, value: "Countess"),
                ContactField(kind: .note, value: "First programmer, probably."),
                ContactField(kind: .social, label: "twitter", value: "https://twitter.com/ada"),
            ])
        let bob = try #require(try fixture.backend.contact(uid: "v4-bob"))
        #expect(
            bob.fields == [
                ContactField(kind: .name, value: "Bob <script>alert(1)</script>"),
                ContactField(kind: .name, label: "full name", value: "Bob Builder"),
                ContactField(kind: .nickname, value: "Bobby"),
                ContactField(kind: .nickname, value: "The Builder"),
                ContactField(kind: .phone, label: "home, voice", value: "+44-20-1234"),
                ContactField(kind: .birthday, value: "12 April"),
                ContactField(kind: .anniversary, value: "12 June 2010"),
                ContactField(kind: .social, label: "xmpp", value: "bob@jabber.example"),
                ContactField(kind: .related, label: "spouse", value: "apple-ada"),
                ContactField(kind: .gender, value: "male, he/him"),
                ContactField(kind: .language, value: "en"),
                ContactField(kind: .timezone, value: "Europe/London"),
                ContactField(kind: .geo, value: "51.5, -0.12"),
            ])
        #expect(bob.unknown.isEmpty)
        let grace = try #require(try fixture.backend.contact(uid: "google-grace"))
        #expect(grace.fields.contains(ContactField(kind: .email, label: "work", value: "grace@navy.example")))
        #expect(grace.fields.contains(ContactField(kind: .phone, label: "mobile", value: "+1 555 0100")))
        #expect(grace.fields.contains(ContactField(kind: .url, label: "blog", value: "https://grace.example")))
        #expect(grace.fields.contains(ContactField(kind: .categories, value: "myContacts, Navy")))
        #expect(try fixture.backend.contact(uid: "never-seen") == nil)
    }

    @Test("a group shows its kind and members")
    func group() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.family])
        let family = try #require(try fixture.backend.contact(uid: "group-family"))
        #expect(
            family.fields == [
                ContactField(kind: .name, value: "Family"), ContactField(kind: .group, label: "kind", value: "group"),
                ContactField(kind: .group, label: "member", value: "apple-ada"),
                ContactField(kind: .group, label: "member", value: "v4-bob"),
            ])
        #expect(family.unknown.isEmpty)
    }

    @Test("the properties without words are listed as they are; every property is there, embedded data by its size")
    func unknownAndProperties() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.ada])
        let ada = try #require(try fixture.backend.contact(uid: "apple-ada"))
        #expect(ada.unknown.map(\.name) == ["X-ABADR", "X-CUSTOM-THING"])
        #expect(
            ada.unknown.last
                == ContactProperty(
                    name: "X-CUSTOM-THING",
                    parameters: [ContactProperty.Parameter(name: "X-PARAM", values: ["a", "b"])],
                    value: "something odd"))
        #expect(ada.unknown.first?.group == "item3")
        let names = ada.properties.map(\.name)
        #expect(names.contains("VERSION") && names.contains("UID") && names.contains("X-ABLABEL"))
        let photo = try #require(ada.properties.first { $0.name == "PHOTO" })
        #expect(photo.value == "")
        #expect(photo.dataBytes == jpegBytes.count)
        #expect(photo.parameters.map(\.name) == ["ENCODING", "TYPE"])
        let n = try #require(ada.properties.first { $0.name == "N" })
        #expect(n.components == ["Lovelace", "Ada", "", "", ""])
        let note = try #require(ada.properties.first { $0.name == "NOTE" })
        #expect(note.value == "First programmer, probably.")
        let tel = try #require(ada.properties.first { $0.name == "TEL" })
        #expect(tel.group == "item1")
        #expect(tel.parameters == [ContactProperty.Parameter(name: "TYPE", values: ["pref"])])
    }

    @Test("a deleted contact answers with its last version, marked deleted")
    func tombstone() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.grace])
        try fixture.store.delete(uid: "google-grace", reason: "deleted on the command line")
        let grace = try #require(try fixture.backend.contact(uid: "google-grace"))
        #expect(grace.deleted)
        #expect(grace.summary.name == "Grace Hopper")
        #expect(grace.fields.first == ContactField(kind: .name, value: "Grace Hopper"))
        #expect(try fixture.backend.list(search: nil, after: nil, limit: 10).contacts.isEmpty)
    }

    @Test("a contact names the remotes whose last sync saw it")
    func remotes() throws {
        let fixture = try BackendFixture()
        try fixture.syncCard(Cards.grace, remote: "icloud")
        let remote = try #require(try fixture.store.remote(named: "icloud"))
        _ = try fixture.store.addRemote(name: "nas", kind: .vdir, url: "/srv/nas")
        let hash = try #require(try fixture.store.contact(uid: "google-grace")).hash
        try fixture.store.upsertRemoteItem(
            RemoteItemState(remoteID: remote.id, uid: "google-grace", href: "/g.vcf", etag: "e", hash: hash))
        #expect(try fixture.backend.contact(uid: "google-grace")?.remotes == ["icloud"])
    }

    @Test("dates read in words, with or without a year")
    func dates() {
        #expect(DateWords.words("19850412") == "12 April 1985")
        #expect(DateWords.words("1985-04-12") == "12 April 1985")
        #expect(DateWords.words("1985-04-12T10:00:00Z") == "12 April 1985")
        #expect(DateWords.words("--0412") == "12 April")
        #expect(DateWords.words("--04-12") == "12 April")
        #expect(DateWords.words("1604-04-12", omittedYear: "1604") == "12 April")
        #expect(DateWords.words("1985-04") == "April 1985")
        #expect(DateWords.words("1985-13-01") == nil)
        #expect(DateWords.words("circa 1900") == nil)
    }

    @Test("the changes feed goes in change order, tombstones included, and says where it stopped")
    func changes() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.ada, Cards.grace])
        try fixture.store.delete(uid: "apple-ada", reason: "deleted")
        let page = try fixture.backend.changes(since: 0, limit: 100)
        #expect(page.results.map(\.uid) == ["google-grace", "apple-ada"])
        #expect(page.results.map(\.deleted) == [false, true])
        #expect(page.lastSeq == page.results.last?.seq)
        #expect(try fixture.backend.lastChange() == page.lastSeq)
        let empty = try fixture.backend.changes(since: page.lastSeq, limit: 100)
        #expect(empty.results.isEmpty && empty.lastSeq == page.lastSeq)
        #expect(throws: ContactsError.self) { try fixture.backend.changes(since: -1, limit: 10) }
    }

    @Test("a store of an older schema is a moment's wait, until its migration is done")
    func olderSchema() throws {
        let fixture = try BackendFixture()
        try fixture.importCards([Cards.grace])
        try Database(path: fixture.path).setUserVersion(Int32(ContactStore.schemaVersion - 1))
        #expect(throws: ContactsError(status: 503, "the store is being set up; try again in a moment")) {
            try fixture.backend.contact(uid: "google-grace")
        }
        try Database(path: fixture.path).setUserVersion(Int32(ContactStore.schemaVersion))
        #expect(try fixture.backend.contact(uid: "google-grace")?.summary.name == "Grace Hopper")
    }

    @Test("the store's failures answer as the API does: busy 503, missing 404, anything else 500 in its words")
    func failures() {
        #expect(StoreContacts.contactsError(SQLiteError(code: 5, message: "database is locked")).status == 503)
        #expect(StoreContacts.contactsError(SQLiteError(code: 6, message: "database table is locked")).status == 503)
        #expect(
            StoreContacts.contactsError(SQLiteError(code: 13, message: "database or disk is full"))
                == ContactsError(status: 500, "the store failed: database or disk is full"))
        #expect(StoreContacts.contactsError(ContactStoreError(.notFound, "no run 9")).status == 404)
        #expect(StoreContacts.contactsError(ContactStoreError(.corruptRow, "row 3")).status == 500)
    }

    @Test("a store that is not there yet is a moment's wait, in words, never a crash")
    func missingStore() throws {
        let fixture = try BackendFixture()
        let backend = StoreContacts(path: fixture.directory.file("nothing-here.sqlite"))
        #expect(throws: ContactsError(status: 503, "the store is being set up; try again in a moment")) {
            try backend.list(search: nil, after: nil, limit: 10)
        }
        #expect(throws: ContactsError(status: 503, "the store is being set up; try again in a moment")) {
            try backend.lastChange()
        }
    }
}
