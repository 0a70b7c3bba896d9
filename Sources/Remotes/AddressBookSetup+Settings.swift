import CardDAV
import Config
import ContactStore
import Glibc
import HTTP

extension AddressBookSetup {
    /// The remote that `candidate` becomes under `name`: a CardDAV book with its password in the secrets folder,
    /// or a folder (which must exist: a missing disk must not look like an empty book).
    public func remote(for candidate: Candidate, account: Account, name: String) -> RemoteSettings {
        switch account.provider {
        case .folder:
            return RemoteSettings(name: name, kind: .vdir(folder: candidate.url, createFolder: false))
        case .icloud, .google, .fastmail, .nextcloud, .carddav, .oauth:
            var card = RemoteSettings.CardDAVSettings(
                url: candidate.url, username: account.username,
                password: .file(settings.passwordPath(forRemote: name)), authScheme: .basic, caFile: account.caFile,
                caPath: nil, concurrency: RemoteSettings.defaultConcurrency)
            if let signedIn = account.oauth {
                // The refresh token is its password; the client's secret a file of its own.
                card.authScheme = .oauth
                card.oauth = signedIn.settings
                card.oauth?.clientSecret = signedIn.clientSecret.map { _ in
                    .file(settings.clientSecretPath(forRemote: name))
                }
            }
            return RemoteSettings(name: name, kind: .carddav(card))
        }
    }

    /// Adds each candidate as a remote of the settings file, named after its display name (``remoteName(for:taken:)``)
    /// or `names` given in the same order, and returns them.
    ///
    /// The passwords are written first (`SettingsFile.savePassword`), then the settings in one save with the
    /// version read here: a save by someone else in between is refused (``SetupFailure/Kind/changedMeanwhile``)
    /// and the passwords written for it are taken away again. Names the administrator's file uses are refused, and
    /// so is a remote beyond `Configuration.remoteLimit` in both files together. `expecting`: the version a page
    /// showed its form from (its ETag), so that a change saved since then is not overwritten; nil: the file's now.
    @discardableResult
    public func add(
        _ candidates: [Candidate], account: Account, names: [String?] = [], expecting: SettingsFile.Version? = nil
    ) throws(SetupFailure) -> [RemoteSettings] {
        guard !candidates.isEmpty else { throw SetupFailure(.invalid, "no address book was chosen") }
        let (household, loaded) = try loadSettings()
        let version = expecting ?? loaded
        // Before a password is written: a remote added since the page's version may have a name chosen here, and
        // its password file must not be replaced. The save checks again, under the folder's lock.
        guard version == loaded else { throw SetupFailure(ConfigurationError.changedMeanwhile(settings.path)) }
        let total = administratorRemotes.count + household.remotes.count + candidates.count
        guard total <= Configuration.remoteLimit else {
            throw SetupFailure(
                .refused,
                "the box syncs at most \(Configuration.remoteLimit) address books, and "
                    + "\(administratorRemotes.count + household.remotes.count) are set up: remove one first")
        }
        for candidate in candidates {
            if let name = household.remotes.first(where: { Self.sameBook($0.place, candidate.url) })?.name {
                throw SetupFailure(.refused, "\(candidate.url) is set up already, as \(name)")
            }
            if administratorBooks.contains(where: { Self.sameBook($0, candidate.url) }) {
                throw SetupFailure(
                    .refused,
                    "\(candidate.url) is set up already, by the administrator in "
                        + Configuration.shown(administratorFile))
            }
        }
        var taken = Set(administratorRemotes + household.remotes.map(\.name))
        var added: [RemoteSettings] = []
        for (index, candidate) in candidates.enumerated() {
            let name: String
            if index < names.count, let given = names[index] {
                try checkName(given, settingsRemotes: household.remotes.map(\.name))
                guard !taken.contains(given) else {
                    throw SetupFailure(.refused, "two address books cannot both be named \(given)")
                }
                name = given
            } else {
                name = Self.remoteName(for: candidate.displayName ?? account.provider.rawValue, taken: taken)
            }
            taken.insert(name)
            added.append(remote(for: candidate, account: account, name: name))
        }
        var written: [String] = []
        do {
            for remote in added where account.provider.needsLogin {
                written.append(settings.passwordPath(forRemote: remote.name))
                try settings.savePassword(account.password, forRemote: remote.name)
                if let secret = account.oauth?.clientSecret {
                    written.append(settings.clientSecretPath(forRemote: remote.name))
                    try settings.saveClientSecret(Array(secret.utf8), forRemote: remote.name)
                }
            }
            var updated = household
            updated.remotes += added
            try settings.save(updated, expecting: version)
        } catch {
            // Nothing names these files now: a password must not stay behind for a remote that was never added.
            for file in written { _ = unlink(file) }
            throw SetupFailure(error)
        }
        return added
    }

    /// Takes a remote out of the settings file, with its password file. Nothing on the server changes, and the
    /// store keeps its contacts with their history; with `store`, the remote's sync state there goes too (after
    /// the save), so that adding the book again starts afresh rather than taking a contact deleted here meanwhile
    /// for a deletion to send. A remote of the administrator's file is refused. `expecting` as for
    /// ``add(_:account:names:expecting:)``.
    public func remove(
        _ name: String, expecting: SettingsFile.Version? = nil, store: ContactStore? = nil
    ) throws(SetupFailure) {
        if administratorRemotes.contains(name) {
            throw SetupFailure(
                .refused,
                "\(name) is set by the administrator in \(Configuration.shown(administratorFile)): remove it there")
        }
        let (household, loaded) = try loadSettings()
        let version = expecting ?? loaded
        guard version == loaded else { throw SetupFailure(ConfigurationError.changedMeanwhile(settings.path)) }
        guard household.remotes.contains(where: { $0.name == name }) else {
            throw SetupFailure(.notFound, "there is no address book named \(Configuration.quoted(name))")
        }
        var updated = household
        updated.remotes.removeAll { $0.name == name }
        do {
            try settings.save(updated, expecting: version)
        } catch {
            throw SetupFailure(error)
        }
        guard let store else { return }
        do {
            if let row = try store.remote(named: name) { try store.deleteRemote(id: row.id) }
        } catch {
            // The settings are saved: the remote is gone for the box. A state left behind is reset when a remote
            // of that name is added for another URL, and is no reason to report the removal as failed.
            throw SetupFailure(
                .cannotSave, "\(name) is removed, but its sync state could not be cleared from the store",
                detail: "\(error)")
        }
    }

    /// Tests `password` against a CardDAV remote of the settings file (the login and one listing), then writes it
    /// to the remote's password file: an app password revoked or replaced at the provider, typed once more. A
    /// password that does not work is not saved, and the old one stays. A remote of the administrator's file, a
    /// folder, or one whose password is a systemd credential is refused: its password is not the page's to change.
    /// For a remote that signs in, `password` is the new refresh token and `bearer` the access token that came
    /// with it.
    @discardableResult
    public func replacePassword(
        of name: String, with password: [UInt8], bearer: (any BearerTokens)? = nil
    ) throws(SetupFailure) -> TestOutcome {
        if administratorRemotes.contains(name) {
            throw SetupFailure(
                .refused,
                "\(name) is set by the administrator in \(Configuration.shown(administratorFile)): change its "
                    + "password there")
        }
        let (household, _) = try loadSettings()
        guard let remote = household.remotes.first(where: { $0.name == name }) else {
            throw SetupFailure(.notFound, "there is no address book named \(Configuration.quoted(name))")
        }
        guard remote.passwordFile == settings.passwordPath(forRemote: name) else {
            throw SetupFailure(.invalid, "\(name) has no password the box keeps (a folder, or a systemd credential)")
        }
        let outcome = try test(remote, password: password, bearer: bearer)
        do {
            try settings.savePassword(password, forRemote: name)
        } catch {
            throw SetupFailure(error)
        }
        return outcome
    }

    /// A name given by a person: valid, and neither the administrator's nor one the settings use already.
    func checkName(_ name: String, settingsRemotes: [String]) throws(SetupFailure) {
        if let problem = RemoteSettings.nameProblem(name) { throw SetupFailure(.invalid, problem) }
        if administratorRemotes.contains(name) {
            throw SetupFailure(
                .refused,
                "\(name) is set by the administrator in \(Configuration.shown(administratorFile)): choose another name")
        }
        if settingsRemotes.contains(name) {
            throw SetupFailure(.refused, "there is an address book named \(name) already: choose another name")
        }
    }

    private func loadSettings() throws(SetupFailure) -> (HouseholdConfiguration, SettingsFile.Version) {
        do {
            return try settings.load()
        } catch {
            // A settings file the box cannot read is not overwritten from here: the page shows why.
            throw SetupFailure(
                .invalid,
                "the settings file cannot be read, so nothing was changed: `contactbox check-config` says why",
                detail: error.description)
        }
    }
}

extension AddressBookSetup {
    /// Two remotes on one book would each send the store's new contacts to it, under the same UID: one book is
    /// one remote. URLs compare as the server does (`DAVURL.sameResource`), folders without a trailing slash.
    static func sameBook(_ left: String, _ right: String) -> Bool {
        guard left.hasPrefix("/"), right.hasPrefix("/") else { return DAVURL.sameResource(left, right) }
        func trimmed(_ path: String) -> Substring {
            var path = Substring(path)
            while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
            return path
        }
        return trimmed(left) == trimmed(right)
    }
}

extension RemoteSettings {
    /// The book's URL, or the folder's path.
    var place: String {
        switch kind {
        case .carddav(let card): card.url
        case .vdir(let folder, _): folder
        }
    }
}
