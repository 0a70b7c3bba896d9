/// One pass over several remotes, in order: a change that a remote brings into the store must reach the remotes
/// synced before it in the same pass, not 15 minutes later. So after the first round, every remote that was in step
/// with the store but has not seen its latest change gets another turn (a no-op is one request), until none is
/// behind or `maxRounds` is reached.
public enum PassRounds {
    /// Rounds in one pass, the first included: enough for a change to cross any number of remotes, bounded so that
    /// two remotes that keep changing (a server rewriting every card) cannot loop.
    public static let maxRounds = 3

    /// Runs `sync(index, round)` for remote `0..<count`, then the follow-up rounds. `sync` returns whether that
    /// remote ended in step (its run finished; a failed or held run gets no follow-up). `storeSeq` is the
    /// store's change sequence, which moves whenever the store changes.
    public static func run(
        count: Int, storeSeq: () throws -> Int64, sync: (_ index: Int, _ round: Int) throws -> Bool
    ) throws {
        var seen = [Int64?](repeating: nil, count: count)
        var turn = Array(0..<count)
        for round in 1...maxRounds where !turn.isEmpty {
            for index in turn {
                seen[index] = try sync(index, round) ? try storeSeq() : nil
            }
            let latest = try storeSeq()
            turn = seen.indices.filter { seen[$0].map { $0 < latest } ?? false }
        }
    }
}
