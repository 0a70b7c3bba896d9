import Logging
import Remotes
import Testing

@testable import Appliance

@Suite("The status page's event list, fed by the log")
struct StatusBoardLogHandlerTests {
    private func logger(_ board: StatusBoard) -> Logger {
        var logger = Logger(label: "test") { _ in StatusBoardLogHandler(board: board) }
        logger[metadataKey: "remote.name"] = "nas"
        return logger
    }

    @Test("the appliance's notices, warnings and errors reach the page in the journal's words")
    func appliancesLines() {
        let board = StatusBoard(version: "test", build: "test")
        let logger = logger(board)
        logger.info("Sync pass started", source: "Appliance")
        logger.notice("Remote synced", metadata: ["sync.result": "ok"], source: "Appliance")
        logger.error("The store failed", metadata: ["store.error": "disk full"], source: "Appliance")
        let events = board.snapshot().events.reversed().map { "\($0.level) \($0.message)" }
        #expect(
            events == [
                "notice Remote synced (name nas, result ok)",
                "error The store failed (name nas, error disk full)",
            ])
    }

    @Test("the libraries' lines stay in the journal")
    func librariesLines() {
        let board = StatusBoard(version: "test", build: "test")
        logger(board).warning("Redirect refused", source: "HTTP")
        logger(board).notice("Wrong status page password", source: "StatusServer")
        #expect(board.snapshot().events.isEmpty)
    }

    @Test("the factory's lines reach the page too (a remote that moved), the address books' stay in the journal")
    func factoryLines() {
        let board = StatusBoard(version: "test", build: "test")
        logger(board).notice("Remote moved: starting afresh", source: RemoteFactory.logSource)
        logger(board).notice("Writes refused while busy: sending them again", source: "Remotes")
        #expect(board.snapshot().events.map(\.message) == ["Remote moved: starting afresh (name nas)"])
    }

    @Test("text from outside stays escaped, one line, on the page as in the journal")
    func escaped() {
        let board = StatusBoard(version: "test", build: "test")
        logger(board).warning(
            "Refused by the server", metadata: ["sync.refused": "Eve\n<3>forged \u{1B}[2J"], source: "Appliance")
        #expect(
            board.snapshot().events.first?.message
                == "Refused by the server (name nas, refused Eve\\u{A}<3>forged \\u{1B}[2J)")
    }

    @Test("a journal level above notice still leaves the page its notices")
    func journalLevel() {
        let board = StatusBoard(version: "test", build: "test")
        let journal = JournalLogHandler(level: .error, prefixed: true)
        let base = Logger(label: "test") { _ in journal }
        base.feeding(board).notice("Network is back", source: "Appliance")
        #expect(board.snapshot().events.map(\.message) == ["Network is back"])
    }

    @Test("the page keeps the newest lines only")
    func limit() {
        let board = StatusBoard(version: "test", build: "test")
        for index in 0..<(StatusBoard.eventLimit + 5) {
            logger(board).notice("Line", metadata: ["n": "\(index)"], source: "Appliance")
        }
        let events = board.snapshot().events
        #expect(events.count == StatusBoard.eventLimit)
        // Newest first.
        #expect(events.first?.message == "Line (n \(StatusBoard.eventLimit + 4), name nas)")
        #expect(events.last?.message == "Line (n 5, name nas)")
    }
}
