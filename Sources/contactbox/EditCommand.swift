import ArgumentParser
import CLISupport
import ContactStore
import Glibc
import SafeText
import SystemSupport
import VCard

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit one contact's vCard in $VISUAL or $EDITOR.",
        discussion: """
            The card is written to a temporary file (mode 600) and the editor opened on it ($VISUAL, else \
            $EDITOR, else vi). When the editor exits with status 0, the file must hold one vCard with the same UID: \
            it is read as `import` reads cards, and stored as the contact's new version; the old one goes to the \
            history (`contactbox history UID`, `contactbox undo RUN`). A file left as it was changes nothing. A \
            card that cannot be read, or with another UID, is refused (exit 65) and the file kept for another try. \
            The next sync carries the edit to every remote.

            \(Exit.help("edit"))
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: "The contact's UID (see `contactbox list`).")
    var uid: String

    func run() throws {
        let contacts = try store.open()
        let contact: StoredContact
        do {
            let found = try contacts.contact(uid: uid)
            guard let found, !found.deleted else {
                Terminal.error(MissingContact.text(uid: uid, found: found))
                throw Exit.findings
            }
            contact = found
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error("cannot read the store \(contacts.path): \(error)")
            throw Exit.ioError
        }
        let path = try Self.writeTemporaryFile(contact.vcard)
        let status = Self.runEditor(on: path)
        guard status == 0 else {
            Terminal.error("the editor exited with status \(status); nothing was saved (your text is in \(path))")
            throw Exit.findings
        }
        let edited: [UInt8]
        do {
            edited = try SmallFile.read(path, limit: 1 << 20)
        } catch {
            Terminal.error("cannot read \(path): \(error.message)")
            throw Exit.noInput
        }
        if edited == Array(contact.vcard.utf8) {
            unlink(path)
            Terminal.note("No change.")
            return
        }
        let card = try Self.readOneCard(edited, path: path, uid: uid)
        do {
            let runID = try contacts.beginOperation(.edit, note: uid)
            let changed = try contacts.upsert(
                card, reason: "edited on the command line", runID: runID, stampingRevision: true)
            try contacts.finishOperation(id: runID)
            unlink(path)
            Terminal.note(
                changed
                    ? "Saved \(printable(card.displayName)) (run \(runID); the old version is in `contactbox history \(printable(uid))`)."
                    : "No change.")
        } catch {
            Terminal.error("cannot write to the store \(contacts.path): \(error) (your text is in \(path))")
            throw Exit.ioError
        }
    }

    /// The edited file as exactly one card with the contact's UID; else exit 65, the file kept.
    static func readOneCard(_ bytes: [UInt8], path: String, uid: String) throws -> Card {
        var reader = CardReader(bytes: bytes)
        let card: Card
        switch reader.next() {
        case .success(let parsed):
            card = parsed.card
        case .failure(let error):
            Terminal.error("the edited card cannot be read: \(printable("\(error)")); nothing was saved (\(path))")
            throw Exit.dataError
        case nil:
            Terminal.error("the edited file holds no card; nothing was saved (to delete, use `contactbox delete`)")
            throw Exit.dataError
        }
        guard reader.next() == nil else {
            Terminal.error("the edited file holds more than one card; nothing was saved (\(path))")
            throw Exit.dataError
        }
        guard card.uid == uid else {
            Terminal.error(
                "the edited card's UID is \(printable(card.uid ?? "missing")), not \(printable(uid)): the UID is the"
                    + " contact's identity and cannot change; nothing was saved (\(path))")
            throw Exit.dataError
        }
        return card
    }

    private static func writeTemporaryFile(_ text: String) throws -> String {
        let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/contactbox-edit-XXXXXX.vcf").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemps($0, 4) } ?? -1
        }
        guard fd >= 0 else {
            Terminal.error("cannot create a temporary file in \(folder): \(SystemError.last)")
            throw Exit.cannotCreate
        }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { close(fd) }
        var bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { write(fd, $0 + written, buffer.count - written) } ?? -1
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                Terminal.error("cannot write \(path): \(SystemError.last)")
                unlink(path)
                throw Exit.cannotCreate
            }
            written += count
        }
        return path
    }

    /// Runs `$VISUAL`, else `$EDITOR`, else vi, through /bin/sh so that an editor with options (`code --wait`)
    /// works as in other tools; returns its exit status (-1 when it could not be started).
    private static func runEditor(on path: String) -> Int32 {
        func variable(_ name: String) -> String? {
            guard let value = getenv(name), value.pointee != 0 else { return nil }
            return String(cString: value)
        }
        let editor = variable("VISUAL") ?? variable("EDITOR") ?? "vi"
        let arguments = ["/bin/sh", "-c", editor + " \"$1\"", "sh", path]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        guard posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        // WIFEXITED and WEXITSTATUS are macros: the low 7 bits are the signal, the next 8 the status.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
