/// SplitMix64: small, seedable, the same sequence on every machine, so that a property test's failing seed replays
/// the same history anywhere.
public struct SplitMix64 {
    public var state: UInt64

    public init(state: UInt64) {
        self.state = state
    }

    /// A number in `0..<bound`.
    public mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
