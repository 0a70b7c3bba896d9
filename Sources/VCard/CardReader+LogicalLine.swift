import SystemSupport

extension CardReader {
    /// One content line put together from its physical lines (and their pieces), in bounded memory: a line in
    /// memory up to `Limits.maxLineBytes`; past `Limits.spillBytes`, the value of a photo, logo, sound or key
    /// (or of any property with base64 data) goes to a spool file instead, up to `Limits.maxCardBytes`.
    struct LogicalLine {
        var bytes: [UInt8] = []
        let number: Int
        /// Where the value is going, once it is spooled.
        private(set) var spool: SpoolFile?
        /// Spooled bytes not written yet: the file is written 64 KiB at a time, not a folded line (75 bytes) at a time.
        private var pending: [UInt8] = []
        /// Spaces and tabs in a spooled value are dropped: it is base64 (`ENCODING=b`), which writers fold with extra
        /// spaces (Apple's two-space continuation lines), as the parser drops them from a value in memory.
        private var dropsSpaces = false
        private var spooledCount = 0
        private var triedSpooling = false
        private var failure: VCardError?

        init(number: Int) {
            self.number = number
        }

        mutating func append(_ part: ArraySlice<UInt8>) {
            guard failure == nil else { return }
            if spool != nil { return spoolValue(part) }
            bytes += part
            if bytes.count > Limits.spillBytes, !triedSpooling, startSpooling() { return }
            if bytes.count > Limits.maxLineBytes {
                failure = VCardError(
                    .lineTooLong, line: number, "line is longer than \(Limits.maxLineBytes >> 20) MiB")
                bytes = []
            }
        }

        /// Moves the value to a spool file, where the line is a photo, logo, sound or key, or holds base64 data.
        private mutating func startSpooling() -> Bool {
            triedSpooling = true
            guard !QuotedPrintable.isDeclared(in: bytes), let line = try? PropertyLine(bytes, line: number) else {
                return false
            }
            let encoding = line.parameters.first { $0.name.uppercased() == "ENCODING" }?.values.first?.lowercased()
            let base64 =
                encoding == "b" || encoding == "base64"
                || line.parameters.contains { $0.values.isEmpty && $0.name.uppercased() == "BASE64" }
            guard base64 || Property.mediaProperties.contains(line.name.uppercased()) else { return false }
            do {
                spool = try SpoolFile()
            } catch {
                failure = VCardError(.unreadableInput, line: number, "cannot spool a value of \(line.name): \(error)")
                return true
            }
            dropsSpaces = base64
            let value = bytes[line.value.startIndex...]
            bytes.removeSubrange(line.value.startIndex...)
            spoolValue(value)
            return true
        }

        private mutating func spoolValue(_ part: ArraySlice<UInt8>) {
            // Base64 and data: URIs are ASCII; a long value that is not is no photo, and is not carried.
            guard part.allSatisfy({ $0 < 0x80 }) else {
                failure = VCardError(
                    .invalidUTF8, line: number, "a value longer than \(Limits.spillBytes >> 10) KiB that is not ASCII")
                return
            }
            if dropsSpaces {
                pending += part.lazy.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
            } else {
                pending += part
            }
            if spooledCount + pending.count > Limits.maxCardBytes {
                failure = VCardError(
                    .cardTooLarge, line: number, "card is larger than \(Limits.maxCardBytes >> 20) MiB")
                return
            }
            if pending.count >= Limits.spillBytes { flush() }
        }

        private mutating func flush() {
            guard let spool, !pending.isEmpty else { return }
            do {
                try spool.append(pending)
                spooledCount += pending.count
                pending.removeAll(keepingCapacity: true)
            } catch {
                failure = VCardError(.unreadableInput, line: number, "cannot spool a value: \(error)")
            }
        }

        /// The line, or why it cannot be read.
        mutating func finish() -> Result<RawLine, VCardError> {
            flush()
            if let failure { return .failure(failure) }
            let large = spool.map { LargeValue(file: $0, range: 0..<$0.count) }
            return .success(RawLine(bytes: bytes, number: number, large: large))
        }
    }
}
