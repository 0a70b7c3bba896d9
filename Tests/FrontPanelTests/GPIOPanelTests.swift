import Glibc
import TestSupport
import Testing

@testable import FrontPanel

/// What can be checked without a GPIO chip: finding the chip, and the errors when it is not there. The lines
/// themselves are exercised in the hardware VM (`Tests/hardware/gpio-vm`), against a real kernel GPIO device.
@Suite("The libgpiod panel without hardware")
struct GPIOPanelTests {
    let board = "Board/raspberry-pi-4.toml"

    func makeWiring(chip: String) -> PanelWiring {
        PanelWiring(
            chip: chip, power: .init(id: .offset(17)), sync: .init(id: .offset(27)), error: .init(id: .offset(22)),
            button: .init(id: .offset(23), activeLow: true, bias: .pullUp), source: board)
    }

    /// An empty folder standing in for /dev, removed afterwards.
    func withDeviceFolder(_ body: (String) throws -> Void) throws {
        let folder = try TemporaryDirectory(prefix: "contactbox-gpio")
        try withExtendedLifetime(folder) { try body(folder.path) }
    }

    func openError(_ chip: String, deviceDirectory: String) -> FrontPanelError? {
        #expect(throws: FrontPanelError.self) {
            _ = try GPIOPanel(makeWiring(chip: chip), consumer: "contactbox-test", deviceDirectory: deviceDirectory)
        }
    }

    @Test("With no GPIO chip at all, a chip label is not found, and the error says none was")
    func noChipsAtAll() throws {
        try withDeviceFolder { folder in
            let error = openError("pinctrl-bcm2711", deviceDirectory: folder)
            #expect(error?.kind == .chipNotFound)
            #expect(
                error?.message
                    == "no GPIO chip labelled \"pinctrl-bcm2711\" (board file \(board)); found: none; "
                    + "gpiodetect lists the chips and their labels")
        }
    }

    @Test("On this machine, a label no chip has is reported with the chips there are")
    func unknownLabelOnThisMachine() {
        let error = #expect(throws: FrontPanelError.self) {
            _ = try GPIOPanel(makeWiring(chip: "contactbox-no-such-chip"))
        }
        #expect(error?.kind == .chipNotFound || error?.kind == .permissionDenied)
        if error?.kind == .chipNotFound {
            #expect(
                error?.message.hasPrefix(
                    "no GPIO chip labelled \"contactbox-no-such-chip\" (board file \(board)); found: ") == true)
        }
        if access("/dev/gpiochip0", F_OK) != 0 {
            #expect(error?.message.contains("found: none;") == true, "\(String(describing: error))")
        }
    }

    @Test("A chip given by a path or a name that is not there names it and lists what exists")
    func missingPathOrName() throws {
        try withDeviceFolder { folder in
            let byPath = openError(folder + "/gpiochip3", deviceDirectory: folder)
            #expect(byPath?.kind == .chipNotFound)
            #expect(
                byPath?.message.hasPrefix("no GPIO chip at \(folder)/gpiochip3 (board file \(board)); found: none")
                    == true)
            let byName = openError("gpiochip3", deviceDirectory: folder)
            #expect(byName?.kind == .chipNotFound)
            #expect(
                byName?.message.hasPrefix("no GPIO chip named gpiochip3 (board file \(board)); found: none") == true)
        }
    }

    @Test("A file that is not a GPIO chip is listed as such, never opened as one")
    func notAChip() throws {
        try withDeviceFolder { folder in
            let fake = folder + "/gpiochip0"
            let fd = open(fake, O_WRONLY | O_CREAT, 0o600)
            try #require(fd >= 0)
            close(fd)
            let byLabel = openError("pinctrl-bcm2711", deviceDirectory: folder)
            #expect(byLabel?.kind == .chipNotFound)
            #expect(
                byLabel?.message.contains("found: gpiochip0 (cannot open: ") == true, "\(String(describing: byLabel))")
            let byName = openError("gpiochip0", deviceDirectory: folder)
            #expect(byName?.message.hasPrefix("\(fake) is not a GPIO chip (board file \(board))") == true)
        }
    }

    @Test("Chip devices are found by their gpiochipN names, in number order")
    func chipNames() throws {
        try withDeviceFolder { folder in
            for name in ["gpiochip12", "gpiochip0", "gpiochipX"] {
                let fd = open(folder + "/" + name, O_WRONLY | O_CREAT, 0o600)
                try #require(fd >= 0)
                close(fd)
            }
            #expect(GPIOChipLookup(source: board, deviceDirectory: folder).chipNames() == ["gpiochip0", "gpiochip12"])
        }
        #expect(GPIOChipLookup.chipNumber("gpiochip4") == 4)
        #expect(GPIOChipLookup.chipNumber("gpiochip") == nil)
        #expect(GPIOChipLookup.chipNumber("pinctrl-rp1") == nil)
        #expect(GPIOChipLookup.chipNumber("gpiochip-1") == nil)
    }

    @Test("Bias words are the board files' words")
    func biasWords() {
        #expect(PanelWiring.Bias.allCases.map(\.rawValue) == ["as-is", "disabled", "pull-up", "pull-down"])
    }
}
