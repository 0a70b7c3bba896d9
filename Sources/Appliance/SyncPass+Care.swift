import ContactStore
import Logging
import StatusServer
import SystemSupport

// The store's care (issue 36: a failing SD card): SQLite's quick check at the start and once a day, and a safety
// copy once a day when the contacts changed. On the worker's thread, between passes: it owns the store.
extension SyncPass {
    /// Checks the store's structure and reports it with the safety copies there are; returns whether it is sound.
    @discardableResult
    public func checkStore() -> Bool {
        let started = monotonicMillis()
        let problems: [String]
        do {
            problems = try store.quickCheck()
        } catch {
            problems = ["the check itself failed: \(error)"]
        }
        let took = monotonicMillis() - started
        if problems.isEmpty {
            logger.info("Store checked", metadata: ["store.check_ms": "\(took)"])
        } else {
            logger.error(
                "The store is damaged",
                metadata: ["store.problem": "\(problems[0])", "store.problems": "\(problems.count)"])
        }
        news(.storeChecked(problems: problems, copies: Self.copies(of: store.path), goodCopy: goodCopy(problems)))
        return problems.isEmpty
    }

    /// The day's care: the check, then, when the store is sound, a safety copy (none when nothing changed since
    /// the last). `shouldStop` (a pass asked for, or the daemon stopping) ends the copy between two steps. Returns
    /// whether the store is sound.
    @discardableResult
    public func careForStore(shouldStop: () -> Bool) -> Bool {
        guard checkStore() else { return false }
        let started = monotonicMillis()
        do {
            switch try store.makeCopy(shouldStop: shouldStop) {
            case .made(let copy):
                logger.notice(
                    "Safety copy made",
                    metadata: [
                        "store.copy_bytes": "\(copy.bytes)", "store.copy_ms": "\(monotonicMillis() - started)",
                    ])
                news(.storeChecked(problems: [], copies: Self.copies(of: store.path)))
            case .unchanged:
                logger.info("No safety copy needed: nothing changed since the last")
            case .stopped:
                news(.copyPostponed)
            }
        } catch let error as ContactStoreError where error.code == .damaged {
            logger.error("The store is damaged", metadata: ["store.problem": "\(error.message)"])
            news(
                .storeChecked(
                    problems: [error.message], copies: Self.copies(of: store.path), goodCopy: goodCopy([error.message]))
            )
            return false
        } catch {
            logger.warning("No safety copy could be made", metadata: ["store.error": "\(error)"])
            news(.copyFailed("\(error)"))
        }
        return true
    }

    static func copies(of path: String) -> [StatusSnapshot.Copy] {
        ContactStore.copies(of: path).map(snapshotCopy)
    }

    /// The copy a recover would put in place of the store at `path` (the newest that passes the check), for the
    /// page's offer; nil when none does.
    static func goodCopy(of path: String) -> StatusSnapshot.Copy? {
        ContactStore.newestGoodCopy(of: path).map(snapshotCopy)
    }

    static func snapshotCopy(_ copy: StoreCopy) -> StatusSnapshot.Copy {
        StatusSnapshot.Copy(madeAt: copy.madeAt / 1000, bytes: copy.bytes)
    }

    /// Only a damaged store's copies are checked: a sound one has no use for them.
    private func goodCopy(_ problems: [String]) -> StatusSnapshot.Copy? {
        problems.isEmpty ? nil : Self.goodCopy(of: store.path)
    }
}
