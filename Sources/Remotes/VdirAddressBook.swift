import Sync
import VCard

#if canImport(Glibc)
    import Glibc
#endif

/// A folder with one `.vcf` file per contact, as vdirsyncer and khard keep them (a "vdir").
///
/// The href of an item is its file name (no folder), and its ETag is `<mtime in ns>-<size>-<inode>` from stat(2),
/// which changes on any rewrite, an atomic replace included (a new file has a new inode). The folder has no sync
/// tokens: every `changes(since:)` is a full listing, streamed with readdir(3).
///
/// Only regular files named `*.vcf` are items. Dotfiles are not: that covers the temporary files of our own atomic
/// writes (`.<name>.tmp-<pid>`) and those of vdirsyncer's, so a crash mid-write never shows up as a contact.
public final class VdirAddressBook: AddressBook {
    public let name: String
    public let folder: String
    public let writeVersion: String

    /// Opens the folder; with `createIfMissing` a missing folder (not its parents) is created, otherwise it is
    /// `.notFound`: an unmounted USB stick or NAS share must not look like an address book whose contacts were all
    /// deleted.
    public init(name: String, folder: String, createIfMissing: Bool, writeVersion: String = "3.0") throws {
        self.name = name
        var trimmed = folder
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.folder = trimmed
        self.writeVersion = writeVersion
        try checkFolder(createIfMissing: createIfMissing)
    }

    public func changes(
        since token: String?, withCards: Bool, changed: (RemoteEntry) throws -> Void,
        removed: (String) throws -> Void
    ) throws -> ChangeFeed {
        let directory = try openFolder()
        while let entry = try nextEntry(directory) {
            guard Self.isItemName(entry.name), entry.isRegularFile != false else { continue }
            // d_type said regular (or did not say): the stat decides, and gives the ETag. A file removed since
            // readdir saw it is simply not listed.
            guard let etag = try etag(of: entry.name) else { continue }
            try changed(RemoteEntry(href: entry.name, etag: etag))
        }
        return ChangeFeed(newToken: nil, isFullListing: true)
    }

    public func fetch(_ hrefs: [String], _ body: (Result<RemoteCard, RemoteError>) throws -> Void) throws {
        for href in hrefs {
            guard Self.isItemName(href) else {
                try body(.failure(RemoteError(.rejected(status: 0), "\(href): not a .vcf file name in \(folder)")))
                continue
            }
            // The ETag is taken before the read: if the file is replaced in between, the card is newer than its
            // ETag, and the next listing fetches it again. The other order could pair an old card with a new ETag
            // and lose an edit.
            guard let etag = try etag(of: href) else { continue }
            guard let result = try readCard(href) else { continue }
            try body(
                result.flatMap { read in
                    switch read {
                    case .card(let parsed): .success(RemoteCard(href: href, etag: etag, parsed: parsed))
                    case .opaque(let text, let why):
                        .success(RemoteCard(opaque: text, href: href, etag: etag, why: why))
                    }
                })
        }
    }

    public func hrefForNew(_ card: Card) -> String {
        Card.fileName(forUID: card.uid ?? "")
    }

    public func create(_ card: Card) throws -> RemoteEntry {
        guard let uid = card.uid, !uid.isEmpty else {
            throw RemoteError(.rejected(status: 0), "a card without a UID cannot be written to \(folder)")
        }
        let href = Card.fileName(forUID: uid)
        let temporary = try writeTemporary(for: href, card)
        try publishNew(temporary, as: href)
        try syncFolder()
        guard let etag = try etag(of: href) else {
            throw RemoteError(.unavailable(retryAfter: nil), "\(path(href)) vanished right after it was written")
        }
        return RemoteEntry(href: href, etag: etag)
    }

    public func update(href: String, etag: String, with card: Card) throws -> String {
        try requireItemName(href)
        try requireCurrent(href, etag: etag)
        let temporary = try writeTemporary(for: href, card)
        // Checked again just before the rename, to keep the window in which another writer's edit could be
        // replaced as short as a folder allows (it has no compare-and-swap).
        do {
            try requireCurrent(href, etag: etag)
        } catch {
            unlink(temporary)
            throw error
        }
        try replace(href, with: temporary)
        try syncFolder()
        guard let newEtag = try self.etag(of: href) else {
            throw RemoteError(.preconditionFailed, "\(path(href)) was deleted right after it was written")
        }
        return newEtag
    }

    public func delete(href: String, etag: String) throws {
        try requireItemName(href)
        guard let current = try self.etag(of: href) else { return }
        guard current == etag else {
            throw RemoteError(.preconditionFailed, "\(path(href)) changed since it was listed; not deleted")
        }
        guard unlink(path(href)) == 0 else {
            let code = errno
            if code == ENOENT { return }
            throw Self.error(code, "cannot delete \(path(href))")
        }
        try syncFolder()
    }

    /// What a file holds: its one card, or text no reader understands, carried as it is.
    enum FileContent {
        case card(ParsedCard)
        case opaque(String, why: String)
    }

    /// The first and only card of a file; nil when the file is gone. A file whose card does not read is carried
    /// opaque; one that cannot be opened, is too large, or holds several cards is an error of that file.
    private func readCard(_ href: String) throws -> Result<FileContent, RemoteError>? {
        let location = path(href)
        var reader: CardReader
        do {
            reader = try CardReader(path: location)
        } catch {
            // CardReader reports a failed open(2) as unreadable input; a file deleted since the stat is just gone.
            if access(location, F_OK) != 0, errno == ENOENT { return nil }
            return .failure(RemoteError(.rejected(status: 0), "\(location):\(error.line): \(error.message)"))
        }
        let first: ParsedCard
        switch reader.next() {
        case nil:
            // Blank: nothing to keep (often a file still being written).
            return .failure(RemoteError(.rejected(status: 0), "\(location):1: the file holds no vCard"))
        case .failure(let error) where error.code != .cardTooLarge && error.code != .unreadableInput:
            return opaque(location, why: "line \(error.line): \(error.message)")
        case .failure(let error):
            return .failure(RemoteError(.rejected(status: 0), "\(location):\(error.line): \(error.message)"))
        case .success(let parsed):
            first = parsed
        }
        switch reader.next() {
        case nil:
            break
        case .success(let extra):
            return .failure(Self.severalCards(location, line: extra.line))
        case .failure(let error):
            return .failure(
                RemoteError(
                    .rejected(status: 0),
                    "\(location):\(error.line): after the first card: \(error.message); a vdir file holds one "
                        + "contact, so the file is not read"))
        }
        // A card without UID gets a stable one from its href, the file name (RemoteCard), not the full path:
        // the folder may be mounted elsewhere next time.
        return .success(.card(first))
    }

    private func opaque(_ location: String, why: String) -> Result<FileContent, RemoteError> {
        do {
            return .success(.opaque(Card.opaqueText(try CardReader.bytes(ofFile: location)), why: why))
        } catch {
            return .failure(RemoteError(.rejected(status: 0), "\(location): \(error.message)"))
        }
    }

    private static func severalCards(_ location: String, line: Int) -> RemoteError {
        RemoteError(
            .rejected(status: 0),
            "\(location):\(line): a second card starts here; a vdir file holds one contact, so none of this "
                + "file's cards is read (split it into one file per card)")
    }
}

@available(*, unavailable) extension VdirAddressBook: Sendable {}
