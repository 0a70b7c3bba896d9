import SystemSupport

extension Card {
    /// `REV` as the box writes it: UTC in the basic form both vCard versions read (`20261128T161500Z`).
    public static func revision(milliseconds: Int64) -> String {
        let date = CivilDate(milliseconds / 1000)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(date.year)" + two(date.month) + two(date.day) + "T" + two(date.hour) + two(date.minute)
            + two(date.second) + "Z"
    }

    /// The card with `REV` set to `revision`: the one REV line replaced (any others dropped), or added before `END`
    /// (after the last property). An opaque card is left as it is: its text is what it is.
    public func stampingRevision(_ revision: String) -> Card {
        guard opaqueText == nil else { return self }
        var card = self
        if let index = card.properties.firstIndex(where: { $0.isNamed("REV") }) {
            card.properties[index] = Property(group: card.properties[index].group, name: "REV", value: revision)
            card.properties.removeAll { $0.isNamed("REV") && $0.value != revision }
        } else {
            card.properties.append(Property(name: "REV", value: revision))
        }
        return card
    }

    /// The card stamped with `milliseconds` as its `REV`: a change made on the box now carries its own time, so that
    /// `conflict = "newest"` compares the moment of each edit, not an older `REV` the card came with.
    public func stampingRevision(milliseconds: Int64) -> Card {
        stampingRevision(Self.revision(milliseconds: milliseconds))
    }

    /// The card without `REV`: a change made while the box's clock is not set carries no time it cannot vouch for
    /// (its change time, put right when the clock is set, stands in for it). An opaque card is left as it is.
    public func removingRevision() -> Card {
        guard opaqueText == nil else { return self }
        var card = self
        card.properties.removeAll { $0.isNamed("REV") }
        return card
    }
}
