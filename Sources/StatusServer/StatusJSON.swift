/// `GET /api/status`: the snapshot as JSON, written by hand (this project never loads Foundation).
///
/// The keys are an interface: the page's script, the `contactbox status` command and people's own scripts read
/// them, so they stay snake_case and stable, and an absent value is `null` rather than a missing key.
///
/// ```
/// {"state":"idle","summary":"Idle","attention":null,"advice":null,
///  "leds":[{"name":"power","lit":true,"pattern":"steady"}, ...],
///  "last_sync":1700000000,"next_sync":1700000900,"started_at":1699990000,"contacts":812,
///  "remotes":[{"name":"icloud","kind":"carddav","last_result":"ok","last_sync":1700000000,"uploaded":0,
///              "downloaded":2,"updated":1,"deleted":0,"conflicts":0,"errors":0,"message":null}],
///  "events":[{"time":1700000000,"level":"info","message":"Sync finished"}],
///  "version":"1.0.0","build":"abc1234",
///  "runs":[{"id":42,"kind":"sync","remote":"icloud","started_at":1700000000,"finished_at":1700000004,
///           "outcome":"ok","store":{"created":1,"updated":3,"deleted":0},
///           "remote_counts":{"uploaded":0,"downloaded":1,"updated":3,"deleted":0},"note":null}],
///  "undo":{"run":42,"phase":"armed","deadline":1700000120,"revived":0,"reverted":3,"deleted":1,"skipped":0,
///          "undo_run":null,"message":null,"restore":null,"recover":null,
///          "contacts":[{"name":"Ada Lovelace","action":"reverted"}]},
///  "copies":[{"made":1699900000,"bytes":7340032}],
///  "damage":null}
/// ```
///
/// `undo` is null until an undo is asked for on the page; its `contacts` are empty unless the page has a password.
/// While the store is damaged, `damage` is `{"problem":"...","copy":{"made":1699900000,"bytes":7340032}}` (`copy`
/// null: no good safety copy). A recover asked for on the page is an `undo` with `run` 0 and `recover`
/// `{"copy_made":1699900000,"contacts":null,"kept_as":null}`; once done, `contacts` and `kept_as` say what it did.
enum StatusJSON {
    /// Every key at the top level, in the order written: the tests check each is present.
    static let topLevelKeys = [
        "state", "summary", "attention", "advice", "leds", "last_sync", "next_sync", "started_at", "contacts",
        "remotes", "events", "version", "build", "runs", "undo", "copies", "damage",
    ]

    static func render(_ snapshot: StatusSnapshot, into writer: inout ByteWriter) {
        writer.raw("{\"state\":")
        writer.jsonString(snapshot.state)
        writer.raw(",\"summary\":")
        writer.jsonString(snapshot.summary)
        writer.raw(",\"attention\":")
        writer.jsonString(snapshot.attention)
        writer.raw(",\"advice\":")
        writer.jsonString(snapshot.advice)

        writer.raw(",\"leds\":")
        writer.jsonArray(snapshot.leds) { led, writer in
            writer.raw("{\"name\":")
            writer.jsonString(led.name)
            writer.raw(led.lit ? ",\"lit\":true,\"pattern\":" : ",\"lit\":false,\"pattern\":")
            writer.jsonString(led.pattern)
            writer.raw("}")
        }
        writer.raw(",\"last_sync\":")
        writer.jsonNumber(snapshot.lastSync)
        writer.raw(",\"next_sync\":")
        writer.jsonNumber(snapshot.nextSync)
        writer.raw(",\"started_at\":")
        writer.decimal(snapshot.startedAt)
        writer.raw(",\"contacts\":")
        writer.decimal(snapshot.contacts)

        writer.raw(",\"remotes\":")
        writer.jsonArray(snapshot.remotes, render)
        writer.raw(",\"events\":")
        writer.jsonArray(snapshot.events) { event, writer in
            writer.raw("{\"time\":")
            writer.decimal(event.time)
            writer.raw(",\"level\":")
            writer.jsonString(event.level)
            writer.raw(",\"message\":")
            writer.jsonString(event.message)
            writer.raw("}")
        }
        writer.raw(",\"version\":")
        writer.jsonString(snapshot.version)
        writer.raw(",\"build\":")
        writer.jsonString(snapshot.build)
        writer.raw(",\"runs\":")
        writer.jsonArray(snapshot.runs, render)
        writer.raw(",\"undo\":")
        if let undo = snapshot.undo { render(undo, into: &writer) } else { writer.raw("null") }
        writer.raw(",\"copies\":")
        writer.jsonArray(snapshot.copies, render)
        writer.raw(",\"damage\":")
        if let damage = snapshot.damage {
            writer.raw("{\"problem\":")
            writer.jsonString(damage.problem)
            writer.raw(",\"copy\":")
            if let copy = damage.copy { render(copy, into: &writer) } else { writer.raw("null") }
            writer.raw("}")
        } else {
            writer.raw("null")
        }
        writer.raw("}\n")
    }

    private static func render(_ copy: StatusSnapshot.Copy, into writer: inout ByteWriter) {
        writer.raw("{\"made\":")
        writer.decimal(copy.madeAt)
        writer.raw(",\"bytes\":")
        writer.decimal(copy.bytes)
        writer.raw("}")
    }

    private static func render(_ run: StatusSnapshot.Run, into writer: inout ByteWriter) {
        writer.raw("{\"id\":")
        writer.decimal(run.id)
        writer.raw(",\"kind\":")
        writer.jsonString(run.kind)
        writer.raw(",\"remote\":")
        writer.jsonString(run.remote)
        writer.raw(",\"started_at\":")
        writer.decimal(run.startedAt)
        writer.raw(",\"finished_at\":")
        writer.jsonNumber(run.finishedAt)
        writer.raw(",\"outcome\":")
        writer.jsonString(run.outcome)
        writer.raw(",\"store\":{\"created\":")
        writer.decimal(run.created)
        writer.raw(",\"updated\":")
        writer.decimal(run.updated)
        writer.raw(",\"deleted\":")
        writer.decimal(run.deleted)
        writer.raw("},\"remote_counts\":")
        if let counts = run.remoteCounts {
            writer.raw("{\"uploaded\":")
            writer.decimal(counts.uploaded)
            writer.raw(",\"downloaded\":")
            writer.decimal(counts.downloaded)
            writer.raw(",\"updated\":")
            writer.decimal(counts.updated)
            writer.raw(",\"deleted\":")
            writer.decimal(counts.deleted)
            writer.raw("}")
        } else {
            writer.raw("null")
        }
        writer.raw(",\"note\":")
        writer.jsonString(run.note)
        writer.raw("}")
    }

    private static func render(_ undo: StatusSnapshot.Undo, into writer: inout ByteWriter) {
        writer.raw("{\"run\":")
        writer.decimal(undo.run)
        writer.raw(",\"phase\":")
        writer.jsonString(undo.phase.rawValue)
        writer.raw(",\"deadline\":")
        writer.jsonNumber(undo.deadline)
        writer.raw(",\"revived\":")
        writer.decimal(undo.revived)
        writer.raw(",\"reverted\":")
        writer.decimal(undo.reverted)
        writer.raw(",\"deleted\":")
        writer.decimal(undo.deleted)
        writer.raw(",\"skipped\":")
        writer.decimal(undo.skipped)
        writer.raw(",\"undo_run\":")
        writer.jsonNumber(undo.undoRun)
        writer.raw(",\"message\":")
        writer.jsonString(undo.message)
        writer.raw(",\"restore\":")
        writer.jsonString(undo.restore)
        writer.raw(",\"recover\":")
        if let recover = undo.recover {
            writer.raw("{\"copy_made\":")
            writer.decimal(recover.copyMadeAt)
            writer.raw(",\"contacts\":")
            writer.jsonNumber(recover.contacts.map(Int64.init))
            writer.raw(",\"kept_as\":")
            writer.jsonString(recover.keptAs)
            writer.raw("}")
        } else {
            writer.raw("null")
        }
        writer.raw(",\"contacts\":")
        writer.jsonArray(undo.contacts) { contact, writer in
            writer.raw("{\"name\":")
            writer.jsonString(contact.name)
            writer.raw(",\"action\":")
            writer.jsonString(contact.action)
            writer.raw("}")
        }
        writer.raw("}")
    }

    private static func render(_ remote: StatusSnapshot.Remote, into writer: inout ByteWriter) {
        writer.raw("{\"name\":")
        writer.jsonString(remote.name)
        writer.raw(",\"kind\":")
        writer.jsonString(remote.kind)
        writer.raw(",\"last_result\":")
        writer.jsonString(remote.lastResult)
        writer.raw(",\"last_sync\":")
        writer.jsonNumber(remote.lastSync)
        writer.raw(",\"uploaded\":")
        writer.decimal(remote.counts.uploaded)
        writer.raw(",\"downloaded\":")
        writer.decimal(remote.counts.downloaded)
        writer.raw(",\"updated\":")
        writer.decimal(remote.counts.updated)
        writer.raw(",\"deleted\":")
        writer.decimal(remote.counts.deleted)
        writer.raw(",\"conflicts\":")
        writer.decimal(remote.counts.conflicts)
        writer.raw(",\"errors\":")
        writer.decimal(remote.counts.errors)
        writer.raw(",\"message\":")
        writer.jsonString(remote.message)
        writer.raw("}")
    }
}
