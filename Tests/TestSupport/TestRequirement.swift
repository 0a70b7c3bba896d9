import Glibc

/// What the tests need beyond Swift (the CardDAV servers, Chromium), all installed by Deploy/test.sh. A suite whose
/// part is missing runs anyway and fails, saying what is missing and how to get it, so that a broken set-up is never
/// a quiet pass. Only `CONTACTBOX_SKIP_MISSING=1` (a developer's machine without root for Cyrus, say) turns such
/// suites off instead, each with its reason in the test report.
public enum TestRequirement {
    public static let skipsMissing = getenv("CONTACTBOX_SKIP_MISSING").map { String(cString: $0) == "1" } ?? false

    /// Whether a suite that needs something should run, given why that thing is missing (nil: it is there).
    public static func runs(missing reason: String?) -> Bool {
        reason == nil || !skipsMissing
    }
}

extension TestServerKind {
    /// Whether the suites that need this server run here: see `TestRequirement`.
    public var runs: Bool { TestRequirement.runs(missing: unavailableReason) }

    /// The note a skipped suite shows.
    public var skipNote: String { "\(description) is missing (CONTACTBOX_SKIP_MISSING=1): \(unavailableReason ?? "")" }
}
