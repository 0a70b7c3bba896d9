import ArgumentParser
import CLISupport
import ContactStore
import SystemSupport
import VCard

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export every contact as vCard text.",
        discussion: """
            Without --out the cards go to standard output. With --out FILE they are written to one .vcf file; \
            with --out FOLDER (an existing folder, or a path ending in /) to one .vcf file per contact, named after \
            its UID. Files are written whole and then renamed into place, so an interrupted export never leaves a \
            half-written file behind.
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("A .vcf file or a folder to write to.", valueName: "file-or-folder"))
    var out: String?

    func run() throws {
        let contacts = try store.openForReading()
        let total = (try? contacts.count()) ?? 0
        var progress = ProgressBar("Exporting", total: total)
        var exported = 0
        do {
            let destination = try Destination(out)
            try contacts.forEachContact { contact in
                try destination.write(contact)
                exported += 1
                progress.update(done: exported, items: exported)
            }
            try destination.commit()
        } catch let error as FileSystem.Failure {
            progress.finish()
            Terminal.error(error.description)
            throw Exit.cannotCreate
        } catch {
            progress.finish()
            Terminal.error("cannot read the store \(store.path): \(error)")
            throw Exit.ioError
        }
        progress.finish()
        Terminal.note("Exported \(exported) contact\(exported == 1 ? "" : "s")" + (out.map { " to \($0)" } ?? "") + ".")
    }
}

/// Where exported cards go: standard output, one file, or a folder of one file per contact.
private enum Destination {
    case standardOutput(FileWriter)
    case file(AtomicFile)
    case folder(String)

    init(_ out: String?) throws(FileSystem.Failure) {
        guard let out else {
            self = .standardOutput(.standardOutput())
            return
        }
        if out.hasSuffix("/") || SmallFile.isDirectory(out) {
            try FileSystem.makeDirectories(out)
            self = .folder(out.hasSuffix("/") ? String(out.dropLast()) : out)
        } else {
            try FileSystem.makeParentDirectories(of: out)
            self = .file(try AtomicFile(path: out))
        }
    }

    func write(_ contact: StoredContact) throws(FileSystem.Failure) {
        switch self {
        case .standardOutput(let writer):
            try writer.write(contact.vcard)
        case .file(let file):
            try file.write(contact.vcard)
        case .folder(let folder):
            let file = try AtomicFile(path: folder + "/" + Card.fileName(forUID: contact.uid))
            try file.write(contact.vcard)
            try file.commit()
        }
    }

    func commit() throws(FileSystem.Failure) {
        switch self {
        case .standardOutput(let writer):
            try writer.flush()
        case .file(let file):
            try file.commit()
        case .folder:
            break
        }
    }
}
