import ContactStore
import SafeText
import SystemSupport

/// What a command says of a UID that names no current contact: a deletion only when the store has its tombstone,
/// and then when it happened.
enum MissingContact {
    static func text(uid: String, found: StoredContact?) -> String {
        guard let found, found.deleted else { return "no contact with UID \(printable(uid))" }
        return "no contact with UID \(printable(uid)): it was deleted on \(PointInTime.localText(found.changedAt)) "
            + "(`contactbox restore \(printable(uid))` brings it back)"
    }
}
