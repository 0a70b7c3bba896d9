/// `GET /metrics`: the snapshot in the Prometheus text exposition format 0.0.4.
///
/// Names follow Prometheus' naming practices: one `contactbox_` prefix, base units (seconds, unix timestamps in
/// seconds), `_total` on counters, labels for the dimensions (state, LED, outcome, remote). A value nobody knows
/// yet (no sync so far) has no sample rather than a made-up 0, so `time() - contactbox_last_sync_timestamp_seconds`
/// never pretends the box synced in 1970.
enum StatusMetrics {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Every state the appliance can be in, each with its own 0/1 gauge so that a dashboard can graph each one.
    static let states = ["starting", "idle", "setup", "syncing", "offline", "attention", "stopping"]
    /// Sync outcomes always shown, at 0 until one happens, so that `rate()` has a series from the start.
    static let outcomes = ["ok", "failed", "deletions_held", "interrupted"]

    static func render(_ snapshot: StatusSnapshot, into writer: inout ByteWriter) {
        let counters = snapshot.counters

        writer.family("contactbox_up", .gauge, "Whether the ContactBox daemon answers (always 1 when scraped).")
        writer.sample("contactbox_up", 1)
        writer.family("contactbox_build_info", .gauge, "The running version and build, as labels.")
        writer.sample("contactbox_build_info", labels: [("version", snapshot.version), ("build", snapshot.build)], 1)
        writer.family("contactbox_start_time_seconds", .gauge, "When the daemon started, in unix seconds.")
        writer.sample("contactbox_start_time_seconds", snapshot.startedAt)

        writer.family("contactbox_state", .gauge, "1 for the state the appliance is in, 0 for the others.")
        for state in states {
            writer.sample("contactbox_state", labels: [("state", state)], snapshot.state == state ? 1 : 0)
        }
        if !states.contains(snapshot.state) {
            writer.sample("contactbox_state", labels: [("state", snapshot.state)], 1)
        }
        writer.family("contactbox_contacts", .gauge, "Contacts in the local store.")
        writer.sample("contactbox_contacts", Int64(snapshot.contacts))
        writer.family("contactbox_led_lit", .gauge, "Whether each front panel LED is lit at this moment.")
        for led in snapshot.leds {
            writer.sample("contactbox_led_lit", labels: [("led", led.name)], led.lit ? 1 : 0)
        }

        writer.family("contactbox_sync_runs_total", .counter, "Sync runs of one remote since start, by outcome.")
        for outcome in outcomes {
            writer.sample("contactbox_sync_runs_total", labels: [("outcome", outcome)], counters.syncRuns[outcome] ?? 0)
        }
        for (outcome, runs) in counters.syncRuns.sorted(by: { $0.key < $1.key }) where !outcomes.contains(outcome) {
            writer.sample("contactbox_sync_runs_total", labels: [("outcome", outcome)], runs)
        }
        let items = counters.items
        let families: [(String, String, Int)] = [
            ("contactbox_items_uploaded_total", "Contacts sent to remotes since start.", items.uploaded),
            ("contactbox_items_downloaded_total", "Contacts received from remotes since start.", items.downloaded),
            ("contactbox_items_updated_total", "Contacts changed by sync since start.", items.updated),
            ("contactbox_items_deleted_total", "Contacts deleted by sync since start.", items.deleted),
            ("contactbox_conflicts_total", "Contacts changed on both sides since start.", items.conflicts),
            ("contactbox_item_errors_total", "Contacts that failed to sync since start.", items.errors),
            (
                "contactbox_button_presses_total", "Presses of the front panel button since start.",
                counters.buttonPresses
            ),
        ]
        for (name, help, value) in families {
            writer.family(name, .counter, help)
            writer.sample(name, value)
        }

        writer.family(
            "contactbox_last_sync_timestamp_seconds", .gauge, "When the last sync pass ended, in unix seconds.")
        if let lastSync = snapshot.lastSync { writer.sample("contactbox_last_sync_timestamp_seconds", lastSync) }
        writer.family("contactbox_last_sync_duration_seconds", .gauge, "How long the last sync pass took.")
        if let lastPass = counters.lastPass {
            writer.sample("contactbox_last_sync_duration_seconds", seconds: lastPass / .seconds(1))
        }
        writer.family("contactbox_next_sync_timestamp_seconds", .gauge, "When the next sync pass is planned.")
        if let nextSync = snapshot.nextSync { writer.sample("contactbox_next_sync_timestamp_seconds", nextSync) }

        writer.family(
            "contactbox_remote_last_sync_timestamp_seconds", .gauge, "When each remote last synced, in unix seconds.")
        for remote in snapshot.remotes {
            guard let lastSync = remote.lastSync else { continue }
            writer.sample("contactbox_remote_last_sync_timestamp_seconds", labels: [("remote", remote.name)], lastSync)
        }
        writer.family("contactbox_remote_up", .gauge, "1 if the last sync of each remote succeeded, else 0.")
        for remote in snapshot.remotes {
            writer.sample("contactbox_remote_up", labels: [("remote", remote.name)], remote.lastResult == "ok" ? 1 : 0)
        }
    }
}

private enum MetricKind: String {
    case gauge, counter
}

/// The lines of the text format, one metric family after the other.
extension ByteWriter {
    /// > # HELP metric_name docstring ... # TYPE metric_name type: ... Only one TYPE line may exist for a given
    /// > metric name. The TYPE line for a metric name must appear before the first sample is reported for it.
    fileprivate mutating func family(_ name: String, _ kind: MetricKind, _ help: String) {
        raw("# HELP ")
        raw(name)
        raw(" ")
        raw(help)
        raw("\n# TYPE ")
        raw(name)
        raw(" ")
        raw(kind.rawValue)
        raw("\n")
    }

    fileprivate mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: Int64) {
        sampleStart(name, labels)
        decimal(value)
        raw("\n")
    }

    fileprivate mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: Int) {
        sample(name, labels: labels, Int64(value))
    }

    fileprivate mutating func sample(_ name: String, seconds: Double) {
        sampleStart(name, [])
        sampleValue(seconds)
        raw("\n")
    }

    private mutating func sampleStart(_ name: String, _ labels: [(String, String)]) {
        raw(name)
        if !labels.isEmpty {
            raw("{")
            for (index, (label, value)) in labels.enumerated() {
                if index > 0 { raw(",") }
                raw(label)
                raw("=\"")
                labelValue(value)
                raw("\"")
            }
            raw("}")
        }
        raw(" ")
    }
}
