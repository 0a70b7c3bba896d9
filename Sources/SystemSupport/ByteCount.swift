/// A size for people: `1.4 MB` (to a tenth, rounded down), `830 KB` (rounded up); decimal units, as disks and
/// phones count them. The status page's script writes the same.
public enum ByteCount {
    public static func text(_ bytes: Int64) -> String {
        bytes >= 1_000_000
            ? "\(bytes / 1_000_000).\(bytes % 1_000_000 / 100_000) MB" : "\((bytes + 999) / 1_000) KB"
    }
}
