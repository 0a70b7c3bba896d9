import SystemSupport

/// The contacts as the JSON API gives them (`Docs/appliance.md`, "Contacts and the JSON API"). Card text goes out exactly as the card has
/// it (``ByteWriter/jsonEncoded(_:)``): a program gets the data, and JSON's own escaping keeps it data. Times are
/// unix milliseconds, as the store keeps them.
enum ContactsJSON {
    /// `{"contacts": [...], "next": CURSOR|null}`.
    static func page(_ page: ContactsPage, into w: inout ByteWriter) {
        w.raw("{\"contacts\":")
        w.jsonArray(page.contacts) { summary($0, into: &$1) }
        w.raw(",\"next\":")
        optional(page.next, into: &w)
        w.raw("}\n")
    }

    static func summary(_ contact: ContactSummary, into w: inout ByteWriter) {
        w.raw("{\"uid\":")
        w.jsonEncoded(contact.uid)
        w.raw(",\"name\":")
        w.jsonEncoded(contact.name)
        w.raw(",\"phone\":")
        optional(contact.phone, into: &w)
        w.raw(",\"email\":")
        optional(contact.email, into: &w)
        w.raw(",\"initials\":")
        w.jsonEncoded(contact.initials)
        w.raw(",\"photo\":")
        if contact.hasPhoto {
            w.jsonEncoded("/api/contacts/" + FormEncoding.escape(contact.uid) + "/photo")
        } else {
            w.raw("null")
        }
        w.raw(",\"hash\":")
        w.jsonEncoded(contact.hash)
        w.raw(",\"seq\":")
        w.decimal(contact.changeSeq)
        w.raw(",\"changed_at\":")
        w.decimal(contact.changedAt)
        w.raw("}")
    }

    /// One contact: its summary's keys, then `deleted`, `remotes`, `fields` (what the page shows in words) and
    /// `properties` (every property of the card, with its parameters).
    static func detail(_ detail: ContactDetail, into w: inout ByteWriter) {
        summary(detail.summary, into: &w)
        w.removeLast()
        w.raw(",\"deleted\":")
        w.raw(detail.deleted ? "true" : "false")
        w.raw(",\"remotes\":")
        w.jsonArray(detail.remotes) { $1.jsonEncoded($0) }
        w.raw(",\"fields\":")
        w.jsonArray(detail.fields) { field, w in
            w.raw("{\"kind\":")
            w.jsonEncoded(field.kind.rawValue)
            w.raw(",\"label\":")
            optional(field.label, into: &w)
            w.raw(",\"value\":")
            w.jsonEncoded(field.value)
            w.raw("}")
        }
        w.raw(",\"properties\":")
        w.jsonArray(detail.properties) { property($0, into: &$1) }
        w.raw("}\n")
    }

    static func property(_ property: ContactProperty, into w: inout ByteWriter) {
        w.raw("{\"name\":")
        w.jsonEncoded(property.name)
        if let group = property.group {
            w.raw(",\"group\":")
            w.jsonEncoded(group)
        }
        w.raw(",\"parameters\":{")
        for (index, parameter) in property.parameters.enumerated() {
            if index > 0 { w.raw(",") }
            w.jsonEncoded(parameter.name)
            w.raw(":")
            w.jsonArray(parameter.values) { $1.jsonEncoded($0) }
        }
        w.raw("},\"value\":")
        w.jsonEncoded(property.value)
        if let components = property.components {
            w.raw(",\"components\":")
            w.jsonArray(components) { $1.jsonEncoded($0) }
        }
        if let bytes = property.dataBytes {
            w.raw(",\"data_bytes\":")
            w.decimal(bytes)
        }
        w.raw("}")
    }

    /// `{"versions": [...], "next": ID|null}`.
    static func versions(_ page: VersionsPage, into w: inout ByteWriter) {
        w.raw("{\"versions\":")
        w.jsonArray(page.versions) { version, w in
            w.raw("{\"id\":")
            w.decimal(version.id)
            w.raw(",\"recorded_at\":")
            w.decimal(version.recordedAt)
            if version.timeUnsure { w.raw(",\"time_unsure\":true") }
            w.raw(",\"kind\":")
            w.jsonEncoded(version.kind)
            w.raw(",\"cause\":")
            w.jsonEncoded(version.cause)
            w.raw(",\"run\":")
            w.jsonNumber(version.runID)
            w.raw(",\"can_restore\":")
            w.raw(version.canRestore ? "true" : "false")
            w.raw(",\"changes\":")
            changes(version.changes, into: &w)
            w.raw("}")
        }
        w.raw(",\"next\":")
        w.jsonNumber(page.next)
        w.raw("}\n")
    }

    static func changes(_ changes: [FieldChange], into w: inout ByteWriter) {
        w.jsonArray(changes) { change, w in
            w.raw("{\"field\":")
            w.jsonEncoded(change.field)
            w.raw(",\"before\":")
            optional(change.before, into: &w)
            w.raw(",\"after\":")
            optional(change.after, into: &w)
            w.raw("}")
        }
    }

    /// `{"contacts": [...], "next": CURSOR|null}`, newest deletion first.
    static func trash(_ page: TrashPage, into w: inout ByteWriter) {
        w.raw("{\"contacts\":")
        w.jsonArray(page.contacts) { contact, w in
            w.raw("{\"uid\":")
            w.jsonEncoded(contact.uid)
            w.raw(",\"name\":")
            w.jsonEncoded(contact.name)
            w.raw(",\"deleted_at\":")
            w.decimal(contact.deletedAt)
            w.raw(",\"cause\":")
            w.jsonEncoded(contact.cause)
            w.raw(",\"version\":")
            w.decimal(contact.historyID)
            w.raw("}")
        }
        w.raw(",\"next\":")
        optional(page.next, into: &w)
        w.raw("}\n")
    }

    /// CouchDB's `_changes` shape: `{"results": [{"seq", "uid", "deleted", "hash"}], "last_seq"}`.
    static func changes(_ page: ChangesPage, into w: inout ByteWriter) {
        w.raw("{\"results\":")
        w.jsonArray(page.results) { change, w in
            w.raw("{\"seq\":")
            w.decimal(change.seq)
            w.raw(",\"uid\":")
            w.jsonEncoded(change.uid)
            w.raw(",\"deleted\":")
            w.raw(change.deleted ? "true" : "false")
            w.raw(",\"hash\":")
            w.jsonEncoded(change.hash)
            w.raw("}")
        }
        w.raw(",\"last_seq\":")
        w.decimal(page.lastSeq)
        w.raw("}\n")
    }

    /// The outcome of a write: `{"run": N, "contact": {...}|null, "created": BOOL}`.
    static func outcome(_ outcome: WriteOutcome, into w: inout ByteWriter) {
        w.raw("{\"run\":")
        w.decimal(outcome.runID)
        w.raw(",\"contact\":")
        if let contact = outcome.contact { summary(contact, into: &w) } else { w.raw("null") }
        w.raw(",\"created\":")
        w.raw(outcome.created ? "true" : "false")
        w.raw("}\n")
    }

    private static func optional(_ text: String?, into w: inout ByteWriter) {
        if let text { w.jsonEncoded(text) } else { w.raw("null") }
    }
}
