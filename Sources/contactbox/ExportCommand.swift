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

            With --as-of TIME, the contacts as they were then (those deleted since included, those created since \
            left out), in the order they were first stored. TIME is as for `contactbox restore`: 2026-11-23T16:05 \
            (local time unless it ends in Z or an offset), or a span back from now (90m, 2h, 3d). A TIME before \
            history that retention has pruned gives a warning on stderr: the export may not be the store as it was.

            \(Exit.help("export"))
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("A .vcf file or a folder to write to.", valueName: "file-or-folder"))
    var out: String?

    @Option(
        name: .customLong("as-of"), help: ArgumentHelp("Export the store as it was at this time.", valueName: "time"))
    var asOf: String?

    func validate() throws {
        if let asOf { _ = try RestoreCommand.time(asOf) }
    }

    func run() throws {
        let contacts = try store.openForReading()
        let total = (try? contacts.count()) ?? 0
        var progress = ProgressBar("Exporting", total: total)
        var exported = 0
        do {
            let destination = try Destination(out)
            func write(uid: String, vcard: String) throws {
                try destination.write(uid: uid, vcard: vcard)
                exported += 1
                progress.update(done: exported, items: exported)
            }
            if let asOf {
                let time = try RestoreCommand.time(asOf)
                RestoreCommand.warnIfPruned(after: time, in: contacts)
                try contacts.forEachContact(asOf: time) { try write(uid: $0, vcard: $1.string) }
            } else {
                try contacts.forEachContact { try write(uid: $0.uid, vcard: $0.vcard) }
            }
            try destination.commit()
        } catch let error as FileSystem.Failure {
            progress.finish()
            Terminal.error(error.description)
            throw Exit.cannotCreate
        } catch {
            progress.finish()
            Terminal.error("cannot read the store \(contacts.path): \(error)")
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

    func write(uid: String, vcard: String) throws(FileSystem.Failure) {
        switch self {
        case .standardOutput(let writer):
            try writer.write(vcard)
        case .file(let file):
            try file.write(vcard)
        case .folder(let folder):
            let file = try AtomicFile(path: folder + "/" + Card.fileName(forUID: uid))
            try file.write(vcard)
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
