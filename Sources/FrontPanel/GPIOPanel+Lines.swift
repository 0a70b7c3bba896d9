import CGPIOD
import Glibc
import SystemSupport

extension GPIOPanel {
    /// A part of the panel, as errors name it.
    enum Part: String, CustomStringConvertible {
        case power = "the power LED"
        case sync = "the sync LED"
        case error = "the error LED"
        case button = "the button"

        var description: String { rawValue }
    }

    /// A line of the panel: libgpiod's handle, which the chip handle owns and frees, and how errors name it.
    struct RequestedLine {
        var handle: OpaquePointer
        var part: Part
        /// `line 17 (GPIO17) on gpiochip0 [pinctrl-bcm2711]`.
        var place: String
    }

    struct PanelLines {
        var power: RequestedLine
        var sync: RequestedLine
        var error: RequestedLine
        var button: RequestedLine
    }

    /// Finds the four lines, then requests them: the LEDs as outputs driven off, the button for events on both
    /// edges. Every line is found before any is requested, so that a wrong board file fails before it takes a
    /// line. On failure the caller closes the chip, which releases what was requested.
    static func requestLines(
        on chip: OpaquePointer, _ wiring: PanelWiring, consumer: String
    ) throws(FrontPanelError) -> PanelLines {
        let source = wiring.source
        let power = try find(wiring.power.id, for: .power, on: chip, source: source)
        let sync = try find(wiring.sync.id, for: .sync, on: chip, source: source)
        let error = try find(wiring.error.id, for: .error, on: chip, source: source)
        let button = try find(wiring.button.id, for: .button, on: chip, source: source)
        let lines = [power, sync, error, button]
        for (index, line) in lines.enumerated() {
            // libgpiod hands out one handle per offset, so the same line found twice is the same handle.
            if let earlier = lines[..<index].first(where: { $0.handle == line.handle }) {
                throw FrontPanelError(
                    "\(earlier.part) and \(line.part) are both wired to \(line.place) (board file \(source)): "
                        + "each needs a line of its own",
                    kind: .lineBusy)
            }
        }
        try request(power, wiring.power, consumer: consumer, source: source)
        try request(sync, wiring.sync, consumer: consumer, source: source)
        try request(error, wiring.error, consumer: consumer, source: source)
        try request(button, wiring.button, consumer: consumer, source: source)
        return PanelLines(power: power, sync: sync, error: error, button: button)
    }

    private static func find(
        _ id: PanelWiring.LineID, for part: Part, on chip: OpaquePointer, source: String
    ) throws(FrontPanelError) -> RequestedLine {
        let chipText = describe(chip)
        let count = Int(gpiod_chip_num_lines(chip))
        let handle: OpaquePointer?
        switch id {
        case .offset(let offset):
            guard offset >= 0, offset < count else {
                let range = count == 0 ? "it has no lines" : "it has \(count) lines, 0 to \(count - 1)"
                throw FrontPanelError(
                    "GPIO chip \(chipText) has no line \(offset) for \(part) (\(range)) (board file \(source))",
                    kind: .lineNotFound)
            }
            handle = gpiod_chip_get_line(chip, UInt32(offset))
        case .name(let name):
            // > gpiod_chip_find_line: "In case a line with given name is not associated with given chip, the
            // > function sets errno to ENOENT." and "This function finds the first line with given name."
            handle = gpiod_chip_find_line(chip, name)
            if handle == nil, errno == ENOENT {
                throw FrontPanelError(
                    "no line named \"\(name)\" on \(chipText) for \(part) (board file \(source)); "
                        + "\(lineNames(chip, count: count)); gpioinfo \(chipName(chip)) lists them",
                    kind: .lineNotFound)
            }
        }
        guard let handle else {
            throw FrontPanelError(
                "cannot read \(id) on \(chipText) for \(part): \(SystemError.text(errno)) "
                    + "(board file \(source))",
                kind: .hardware)
        }
        var place = "line \(gpiod_line_offset(handle))"
        if let name = gpiod_line_name(handle) { place += " (\(String(cString: name)))" }
        return RequestedLine(handle: handle, part: part, place: place + " on " + chipText)
    }

    private static func request(
        _ line: RequestedLine, _ wiring: PanelWiring.Line, consumer: String, source: String
    ) throws(FrontPanelError) {
        var flags: Int32 = wiring.activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        switch wiring.bias {
        case .asIs: break
        case .disabled: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
        case .pullUp: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
        case .pullDown: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
        }
        let type = line.part == .button ? GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES : GPIOD_LINE_REQUEST_DIRECTION_OUTPUT
        // > gpiod_line_request: "default_val Initial line value - only relevant if we're setting the direction to
        // > output." It is the logical value (active level applied): 0 is an LED that is off.
        let result = consumer.withCString { name in
            var config = gpiod_line_request_config(consumer: name, request_type: Int32(type), flags: flags)
            return gpiod_line_request(line.handle, &config, 0)
        }
        guard result != 0 else { return }
        let code = errno
        if code == EBUSY {
            // The line info was read when the line was looked up; read it again to name who holds it now.
            _ = gpiod_line_update(line.handle)
            let holder = gpiod_line_consumer(line.handle).map { "\"\(String(cString: $0))\"" }
            throw FrontPanelError(
                "\(line.place) (\(line.part)) is in use by \(holder ?? "another program or a kernel driver") "
                    + "(board file \(source)); stop it, or wire the panel to free lines (gpioinfo shows them)",
                kind: .lineBusy)
        }
        var message =
            "cannot request \(line.place) for \(line.part): \(SystemError.text(code)) (board file \(source))"
        if code == EINVAL, wiring.bias != .asIs {
            message += "; bias = \"\(wiring.bias.rawValue)\" needs Linux 5.5 or later and a chip that supports it"
        }
        throw FrontPanelError(message, kind: code == EACCES || code == EPERM ? .permissionDenied : .hardware)
    }

    /// `gpiochip0 [pinctrl-bcm2711]`.
    static func describe(_ chip: OpaquePointer) -> String {
        "\(chipName(chip)) [\(String(cString: gpiod_chip_label(chip)))]"
    }

    private static func chipName(_ chip: OpaquePointer) -> String {
        String(cString: gpiod_chip_name(chip))
    }

    /// The chip's line names, for an error about a name it does not have (the first 16: a header chip has 28 to 54).
    private static func lineNames(_ chip: OpaquePointer, count: Int) -> String {
        var names: [String] = []
        for offset in 0..<count {
            if let line = gpiod_chip_get_line(chip, UInt32(offset)), let name = gpiod_line_name(line) {
                names.append(String(cString: name))
            }
        }
        guard !names.isEmpty else { return "none of its \(count) lines has a name: give line numbers instead" }
        let shown = names.prefix(16).joined(separator: ", ")
        return "its lines are named " + shown + (names.count > 16 ? " and \(names.count - 16) more" : "")
    }
}
