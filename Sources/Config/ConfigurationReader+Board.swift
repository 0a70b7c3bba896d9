/// Board files (`Board/*.toml`): the chip by its label, and each LED and the button by line, active level and
/// bias. Read with the configuration's reader, so that their errors look the same and name file, line and key.
extension ConfigurationReader {
    static let boardKeys = ["board", "chip_label", "led", "button"]
    static let boardLineKeys = ["line", "name", "active_low", "bias"]
    static let ledNames = ["power", "sync", "error"]
    static let buttonNames = ["sync"]
    static let allBoardKeys = Set(boardKeys + boardLineKeys + ledNames + buttonNames)
    /// GPIO line names are at most 31 bytes: the v1 uAPI's `GPIO_MAX_NAME_SIZE` is 32 with the terminating zero.
    static let lineNameLimit = 31
    static let offsetRange = 0...65_535

    mutating func readBoard(_ root: TOMLTable) -> BoardConfiguration? {
        let top = Block(table: root, context: "")
        checkKeys(top, allowed: Self.boardKeys)
        let title = required(top, "board")
        let chipLabel = required(top, "chip_label")
        let leds = group(top, "led", Self.ledNames)
        let buttons = group(top, "button", Self.buttonNames)
        let power = line(leds, "led", "power", activeLow: false)
        let sync = line(leds, "led", "sync", activeLow: false)
        let error = line(leds, "led", "error", activeLow: false)
        let button = line(buttons, "button", "sync", activeLow: true)
        guard let title, let chipLabel, let power, let sync, let error, let button else { return nil }
        return BoardConfiguration(
            title: title, chipLabel: chipLabel, power: power, sync: sync, error: error, button: button)
    }

    /// `[led.*]` or `[button.*]`: a table of named parts.
    private mutating func group(_ top: Block, _ key: String, _ parts: [String]) -> Block? {
        guard let value = top.table[key] else { return nil }
        guard let table = value.table else {
            let headers = parts.map { "[\(key).\($0)]" }.joined(separator: ", ")
            fail(top, key, "\(key) must be written as \(headers) sections, each with its line")
            return nil
        }
        let block = Block(table: table, context: "[\(key)] ")
        checkKeys(block, allowed: parts)
        return block
    }

    private mutating func line(
        _ group: Block?, _ key: String, _ part: String, activeLow defaultActiveLow: Bool
    ) -> BoardConfiguration.Line? {
        let header = "[\(key).\(part)]"
        guard let value = group?.table[part] else {
            // About the whole file: there is no line to point at.
            fail(
                Block(table: TOMLTable(), context: ""), nil,
                "\(header) is missing: a board names the power, sync and error LEDs and the sync button")
            return nil
        }
        guard let table = value.table else {
            if let group { fail(group, part, "\(key).\(part) must be a section: write \(header) above its line") }
            return nil
        }
        let block = Block(table: table, context: header + " ")
        checkKeys(block, allowed: Self.boardLineKeys)
        let id = lineID(block)
        let name = string(block, "name")
        if let name, name.isEmpty || name.utf8.count > Self.lineNameLimit {
            fail(
                block, "name",
                "name must be the line's name, 1 to \(Self.lineNameLimit) characters (found \(Configuration.quoted(name)))"
            )
        } else if let name, case .name(let lineName)? = id, lineName != name {
            fail(
                block, "name",
                "name is \(Configuration.quoted(name)) but line names \(Configuration.quoted(lineName)): give the name once, as line"
            )
        }
        let activeLow = bool(block, "active_low") ?? defaultActiveLow
        var bias = "as-is"
        if let text = string(block, "bias") {
            if BoardConfiguration.biasValues.contains(text) {
                bias = text
            } else {
                let values = BoardConfiguration.biasValues.joined(separator: ", ")
                fail(block, "bias", "bias must be one of \(values) (found \(Configuration.quoted(text)))")
            }
        }
        guard let id else { return nil }
        return BoardConfiguration.Line(id: id, name: name, activeLow: activeLow, bias: bias)
    }

    /// `line = 17` (an offset on the chip, the GPIO number on a Raspberry Pi) or `line = "LED_SYNC"` (a name).
    private mutating func lineID(_ block: Block) -> BoardConfiguration.LineID? {
        let range = Self.offsetRange
        switch block.table["line"] {
        case nil:
            fail(
                block, nil, "line is missing: write the GPIO number (line = 17) or the line's name (line = \"GPIO17\")")
        case .integer(let number)? where range.contains(Int(clamping: number)):
            return .offset(Int(number))
        case .string(let name)? where !name.isEmpty && name.utf8.count <= Self.lineNameLimit:
            return .name(name)
        case let value?:
            fail(
                block, "line",
                "line must be a GPIO number from \(range.lowerBound) to \(range.upperBound), or a line name of 1 to "
                    + "\(Self.lineNameLimit) characters in quotes (found \(show(value)))")
        }
        return nil
    }
}
