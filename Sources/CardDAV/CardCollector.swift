import Glibc
import SystemSupport
import VCard

/// One card's bytes as they arrive (a multistatus's `address-data`, a GET's body), so that a card of megabytes (a
/// photo) never sits whole in the process's own memory: up to `CardText.spoolThreshold` in memory, past it in a
/// spool file (`SpoolFile`: page cache, not footprint), with the memory kept as that file's write buffer (libxml2
/// hands text over a few hundred bytes at a time: one write each would be tens of thousands of system calls a
/// card). Past `CardReader.Limits.maxCardBytes` the rest is only counted and the card is refused: a server cannot
/// make the box hold more than that of one item, whatever it sends.
struct CardCollector {
    /// Bytes seen, kept or not.
    private(set) var count = 0
    /// The first bytes, or the ones not yet written to `file`.
    private var pending: [UInt8] = []
    private var file: SpoolFile?
    /// Why the bytes could not be kept: the spool file could not be made or written (a full disk).
    private var spoolError: SystemError?

    var isOverLimit: Bool { count > CardReader.Limits.maxCardBytes }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        count += bytes.count
        guard !isOverLimit, spoolError == nil else {
            drop()
            return
        }
        guard pending.count + bytes.count > CardText.spoolThreshold else {
            pending.append(contentsOf: bytes)
            return
        }
        spill()
        guard spoolError == nil else { return }
        if bytes.count > CardText.spoolThreshold {
            write(bytes)
        } else {
            pending.append(contentsOf: bytes)
        }
    }

    /// The card as read, or why it is refused (the caller names the item).
    mutating func finish() -> Result<CardText, CardRefusal> {
        if isOverLimit { return .failure(CardRefusal(count: count)) }
        guard file != nil else {
            // Copied to its size: the buffer may have grown past it.
            return .success(.bytes(pending.withUnsafeBufferPointer { Array($0) }))
        }
        spill()
        if let spoolError { return .failure(CardRefusal(count: count, spoolError: spoolError)) }
        guard let file else { return .failure(CardRefusal(count: count, spoolError: SystemError(EIO))) }
        return .success(.spooled(file))
    }

    /// The first bytes kept (the start of an error page, a gzip signature), at most `limit`.
    func prefix(_ limit: Int) -> [UInt8] {
        if let file { CardText.spooled(file).bytes(at: 0, count: limit) } else { Array(pending.prefix(limit)) }
    }

    /// Moves the bytes in memory to the spool file, made at the first spill.
    private mutating func spill() {
        guard !pending.isEmpty, spoolError == nil else { return }
        pending.withUnsafeBytes { write($0) }
        pending.removeAll(keepingCapacity: true)
    }

    private mutating func write(_ bytes: UnsafeRawBufferPointer) {
        do throws(SystemError) {
            if file == nil { file = try SpoolFile() }
            try file?.append(bytes)
        } catch {
            spoolError = error
            drop()
        }
    }

    /// Lets go of what was kept: the card will be refused.
    private mutating func drop() {
        pending = []
        file = nil
    }
}

/// Why a card was not collected: larger than `CardReader.Limits.maxCardBytes`, or its spool file failed.
struct CardRefusal: Error {
    var count: Int
    var spoolError: SystemError?

    /// For the message after the item's name.
    var message: String {
        if let spoolError {
            return "the card (\(count) bytes so far) could not be spooled to \(SpoolFile.directory): \(spoolError)"
        }
        return "the card is larger than \(CardReader.Limits.maxCardBytes >> 20) MiB (at least \(count) bytes); refused"
    }
}
