extension Card {
    /// A file name for this UID in a folder of one card per file (vdir): the UID itself when it is safe on every
    /// file system, otherwise the safe characters plus a short hash of the UID, so that two UIDs never share a file.
    public static func fileName(forUID uid: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@+")
        let safe = String(uid.map { allowed.contains($0) ? $0 : "_" }.prefix(120))
        if safe == uid, !uid.isEmpty, !uid.hasPrefix(".") { return uid + ".vcf" }
        let digest = sha256Hex(Array(uid.utf8))
        let stem = safe.drop { $0 == "." }
        return (stem.isEmpty ? "" : stem + "-") + digest.prefix(12) + ".vcf"
    }
}
