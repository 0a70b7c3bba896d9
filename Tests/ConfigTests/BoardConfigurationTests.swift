import Glibc
import TestSupport
import Testing

@testable import Config

@Suite("Board files")
struct BoardConfigurationTests {
    let file = boardPath

    @Test("Every board file in the repository loads")
    func everyCommittedBoardLoads() throws {
        let names = BoardConfiguration.available(in: boardFolder)
        #expect(Set(names).isSuperset(of: ["raspberry-pi-3", "raspberry-pi-4", "raspberry-pi-5", "simulated"]))
        for name in names {
            let path = BoardConfiguration.resolve(name: name, boardsDirectory: boardFolder)
            let result = BoardConfiguration.validate(path: path, boardsDirectory: boardFolder)
            #expect(result.errors.isEmpty, "\(result.errors.map(\.description))")
        }
    }

    @Test(
        "The Raspberry Pi boards name their header chip by label and the panel by GPIO number and name",
        arguments: [
            ("raspberry-pi-3", "pinctrl-bcm2835"), ("raspberry-pi-4", "pinctrl-bcm2711"),
            ("raspberry-pi-5", "pinctrl-rp1"),
        ])
    func raspberryPiBoards(name: String, label: String) throws {
        let board = try BoardConfiguration.load(
            path: BoardConfiguration.resolve(name: name, boardsDirectory: boardFolder), boardsDirectory: boardFolder)
        #expect(board.chipLabel == label)
        #expect(!board.isSimulated)
        #expect(board.power == BoardConfiguration.Line(id: .offset(17), name: "GPIO17"))
        #expect(board.sync == BoardConfiguration.Line(id: .offset(27), name: "GPIO27"))
        #expect(board.error == BoardConfiguration.Line(id: .offset(22), name: "GPIO22"))
        #expect(
            board.button == BoardConfiguration.Line(id: .offset(23), name: "GPIO23", activeLow: true, bias: "pull-up"))
    }

    @Test("The simulated board is simulated, and the test VM's board finds its lines by name")
    func simulatedAndVMBoards() throws {
        let simulated = try BoardConfiguration.load(path: boardFolder + "/simulated.toml", boardsDirectory: boardFolder)
        #expect(simulated.isSimulated)
        let vm = try BoardConfiguration.load(path: boardFolder + "/gpio-vm.toml", boardsDirectory: boardFolder)
        #expect(vm.chipLabel == "pinctrl-bcm2711")
        #expect(vm.sync.id == .name("LED_SYNC"))
        #expect(vm.button == BoardConfiguration.Line(id: .name("BTN_SYNC"), activeLow: true, bias: "pull-up"))
    }

    @Test("Defaults: LEDs lit when high, the button pressed when low, bias as the firmware left it")
    func defaults() throws {
        let text = makeBoardText(replacing: "active_low = true\nbias = \"pull-up\"", with: "")
        let board = try #require(BoardConfiguration.validate(bytes: Array(text.utf8), path: file).board)
        #expect(
            board.power == BoardConfiguration.Line(id: .offset(17), name: "GPIO17", activeLow: false, bias: "as-is"))
        #expect(board.button.activeLow)
        #expect(board.button.bias == "as-is")
        #expect(board.title == "Test board")
    }

    @Test(
        "A line that is not a GPIO number or a name is reported on its line",
        arguments: ["-1", "65536", "3.5", "true", "\"\"", "\"a-name-far-too-long-for-the-kernel-0123\""])
    func badLine(value: String) throws {
        let text = makeBoardText(replacing: "line = 27", with: "line = \(value)")
        let errors = BoardConfiguration.validate(bytes: Array(text.utf8), path: file).errors
        #expect(errors.count == 1, "\(errors)")
        let error = try #require(errors.first)
        #expect(error.description.hasPrefix("\(file):9: [led.sync] line must be a GPIO number from 0 to 65535"))
        #expect(error.key == "line")
        #expect(error.line == 9)
    }

    @Test("A bias that libgpiod has no flag for is refused with the ones it has")
    func badBias() {
        #expect(
            boardProblems(makeBoardText(replacing: "bias = \"pull-up\"", with: "bias = \"pullup\"")) == [
                "\(file):17: [button.sync] bias must be one of as-is, disabled, pull-up, pull-down (found \"pullup\")"
            ])
    }

    @Test("Missing keys and sections are named; unknown keys are caught with a suggestion")
    func missingAndUnknownKeys() {
        #expect(
            boardProblems(makeBoardText(replacing: "line = 22", with: "")) == [
                "\(file):11: [led.error] line is missing: write the GPIO number (line = 17) or the line's name "
                    + "(line = \"GPIO17\")"
            ])
        #expect(
            boardProblems(makeBoardText(replacing: "[led.error]\nline = 22", with: "")) == [
                "\(file): [led.error] is missing: a board names the power, sync and error LEDs and the sync button"
            ])
        #expect(
            boardProblems(makeBoardText(replacing: "chip_label = \"pinctrl-bcm2711\"", with: "")) == [
                "\(file): chip_label is missing"
            ])
        #expect(
            boardProblems(makeBoardText(replacing: "active_low = true", with: "active_lo = true")) == [
                "\(file):16: [button.sync] unknown key active_lo (did you mean active_low?)"
            ])
        #expect(
            boardProblems(makeBoardText(replacing: "[led.sync]", with: "[led.status]")) == [
                "\(file): [led.sync] is missing: a board names the power, sync and error LEDs and the sync button",
                "\(file):8: [led] unknown key status",
            ])
    }

    @Test("A wrong type names the key, and a name must agree with a named line")
    func wrongTypes() {
        #expect(
            boardProblems(makeBoardText(replacing: "active_low = true", with: "active_low = \"yes\"")) == [
                "\(file):16: [button.sync] active_low must be true or false, without quotes (found \"yes\")"
            ])
        let named = makeBoardText(replacing: "line = 17", with: "line = \"LED_POWER\"")
        #expect(
            boardProblems(named) == [
                "\(file):6: [led.power] name is \"GPIO17\" but line names \"LED_POWER\": give the name once, "
                    + "as line"
            ])
    }

    @Test("A syntax error carries its line")
    func syntaxError() {
        let errors = boardProblems(makeBoardText(replacing: "line = 27", with: "line = 27 27"))
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("\(file):9: ") == true, "\(errors)")
    }

    @Test("A board file that is not there is reported with the boards there are, and the likely one")
    func missingBoardFile() throws {
        let path = BoardConfiguration.resolve(name: "raspbery-pi-4", boardsDirectory: boardFolder)
        let error = #expect(throws: ConfigurationError.self) {
            try BoardConfiguration.load(path: path, boardsDirectory: boardFolder)
        }
        let names = BoardConfiguration.available(in: boardFolder).joined(separator: ", ")
        #expect(
            error?.description
                == "\(path): board file not found (boards are in \(boardFolder): \(names); "
                + "did you mean raspberry-pi-4?)")
        let empty = try TemporaryDirectory()
        let none = #expect(throws: ConfigurationError.self) {
            try BoardConfiguration.load(path: empty.file("x.toml"), boardsDirectory: empty.path)
        }
        #expect(none?.message.contains("there are no boards in \(empty.path)") == true)
    }

    @Test("Board names resolve in the boards folder; paths stay as they are")
    func resolve() {
        let folder = "/usr/share/contactbox/boards"
        #expect(
            BoardConfiguration.resolve(name: "raspberry-pi-4", boardsDirectory: folder) == folder
                + "/raspberry-pi-4.toml")
        #expect(BoardConfiguration.resolve(name: "mine.toml", boardsDirectory: folder + "/") == folder + "/mine.toml")
        #expect(
            BoardConfiguration.resolve(name: "/etc/contactbox/mine.toml", boardsDirectory: folder)
                == "/etc/contactbox/mine.toml")
    }
}

/// `CONTACTBOX_BOARDS` is process-wide: only this suite touches it.
@Suite("The boards folder from the environment", .serialized)
struct BoardsDirectoryTests {
    @Test("$CONTACTBOX_BOARDS wins over the installed folder")
    func boardsDirectory() {
        let saved = getenv("CONTACTBOX_BOARDS").map { String(cString: $0) }
        defer {
            if let saved { setenv("CONTACTBOX_BOARDS", saved, 1) } else { unsetenv("CONTACTBOX_BOARDS") }
        }
        unsetenv("CONTACTBOX_BOARDS")
        #expect(BoardConfiguration.directory() == "/usr/share/contactbox/boards")
        setenv("CONTACTBOX_BOARDS", "/tmp/boards", 1)
        #expect(BoardConfiguration.directory() == "/tmp/boards")
        #expect(PanelSettings(board: "raspberry-pi-5").boardPath() == "/tmp/boards/raspberry-pi-5.toml")
    }
}
