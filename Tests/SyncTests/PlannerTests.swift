import Testing

@testable import Sync

@Suite("Sync planner")
struct PlannerTests {
    typealias Side = Planner.Side
    static let h0 = Planner.Version(hash: "h0")
    static let h1 = Planner.Version(hash: "h1")
    static let h2 = Planner.Version(hash: "h2")

    func decide(_ base: String?, _ local: Side, _ remote: Side, _ policy: ConflictPolicy = .newest) -> Planner.Decision
    {
        Planner.decide(base: base.map(Planner.Base.init(hash:)), local: local, remote: remote, policy: policy)
    }

    @Test("one side changed: the change is copied over")
    func oneSideChanged() {
        #expect(decide("h0", .present(Self.h1), .unchanged) == .upload)
        #expect(decide("h0", .present(Self.h0), .present(Self.h1)) == .download)
        #expect(decide("h0", .present(Self.h0), .unchanged) == .nothing)
        #expect(decide("h0", .present(Self.h0), .present(Self.h0)) == .markSynced)
    }

    @Test("one side deleted, the other unchanged: the deletion is copied over")
    func deletionsTravel() {
        #expect(decide("h0", .absent, .unchanged) == .deleteRemote)
        #expect(decide("h0", .absent, .present(Self.h0)) == .deleteRemote)
        #expect(decide("h0", .present(Self.h0), .absent) == .deleteLocal)
        #expect(decide("h0", .absent, .absent) == .forget)
    }

    @Test("edit beats delete on either side")
    func editBeatsDelete() {
        #expect(decide("h0", .absent, .present(Self.h1)) == .download)
        #expect(decide("h0", .present(Self.h1), .absent) == .upload)
    }

    @Test("identical content is not a conflict, with or without a base")
    func identicalIsNotAConflict() {
        #expect(decide("h0", .present(Self.h1), .present(Self.h1)) == .markSynced)
        #expect(decide(nil, .present(Self.h1), .present(Self.h1)) == .markSynced)
    }

    @Test("both changed differently: the policy picks the winner")
    func conflictsFollowThePolicy() {
        #expect(decide("h0", .present(Self.h1), .present(Self.h2), .local) == .conflict(winner: .local))
        #expect(decide("h0", .present(Self.h1), .present(Self.h2), .remote) == .conflict(winner: .remote))
        #expect(decide(nil, .present(Self.h1), .present(Self.h2), .local) == .conflict(winner: .local))
        let older = Planner.Version(hash: "h1", rev: "2024-01-01T10:00:00Z")
        let newer = Planner.Version(hash: "h2", rev: "20240301T090000Z")
        #expect(decide("h0", .present(older), .present(newer)) == .conflict(winner: .remote))
        #expect(decide("h0", .present(newer), .present(older)) == .conflict(winner: .local))
        // No remote REV: the remote wins, the version the rest of the household sees.
        #expect(decide("h0", .present(newer), .present(Self.h1)) == .conflict(winner: .remote))
        // No local REV: the local change time stands in for it.
        let decision = Planner.decide(
            base: Planner.Base(hash: "h0"), local: .present(Self.h1), remote: .present(newer), policy: .newest,
            localTime: "20250101000000")
        #expect(decision == .conflict(winner: .local))
        let earlier = Planner.decide(
            base: Planner.Base(hash: "h0"), local: .present(Self.h1), remote: .present(newer), policy: .newest,
            localTime: "20230101000000")
        #expect(earlier == .conflict(winner: .remote))
        #expect(decision == .conflict(winner: .local))
    }

    @Test("new on one side only: it is copied over")
    func newItems() {
        #expect(decide(nil, .present(Self.h1), .absent) == .upload)
        #expect(decide(nil, .absent, .present(Self.h1)) == .download)
        #expect(decide(nil, .absent, .absent) == .nothing)
    }

    /// Every combination of base, local and remote: no decision ever throws away a version that only one side has.
    @Test("no combination of states loses a change")
    func exhaustiveNoLoss() {
        let versions: [Side] = [.absent, .present(Self.h0), .present(Self.h1), .present(Self.h2)]
        for base in [nil, "h0"] as [String?] {
            for local in versions {
                for remote in versions + (base == nil ? [] : [.unchanged]) {
                    for policy in ConflictPolicy.allCases {
                        let decision = decide(base, local, remote, policy)
                        let localChanged = Self.isChange(local, base: base)
                        let remoteChanged = Self.isChange(remote, base: base)
                        let context = "base \(base ?? "-") local \(local) remote \(remote) → \(decision)"
                        // A side's edit (present and different from the base) is never deleted.
                        if localChanged, case .present = local { #expect(decision != .deleteLocal, "\(context)") }
                        if remoteChanged, case .present = remote { #expect(decision != .deleteRemote, "\(context)") }
                        // Something changed on some side: the planner must act.
                        if localChanged || remoteChanged { #expect(decision != .nothing, "\(context)") }
                        // Nothing changed anywhere: nothing is written.
                        if !localChanged, !remoteChanged {
                            #expect([.nothing, .markSynced].contains(decision), "\(context)")
                        }
                    }
                }
            }
        }
    }

    static func isChange(_ side: Side, base: String?) -> Bool {
        switch side {
        case .unchanged: false
        case .absent: base != nil
        case .present(let version): version.hash != base
        }
    }
}
