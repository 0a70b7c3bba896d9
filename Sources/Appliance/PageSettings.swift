import Config
import Glibc
import StatusServer

/// The settings a paired browser reads and changes on the status page: read from both files as the daemon runs
/// them (`Configuration.checked`), changed in the settings file through `SettingsFile` (the path the command line
/// takes too), after which `saved` asks the main loop to reload, as SIGHUP does: a pass that runs meanwhile ends
/// with the settings it started with. Runs on the status server's thread; nothing here waits on the network
/// (replacing a remote's password tests the login first, so it is a step of `PageSetup`).
///
/// The changes a form may ask (`action`), each with the `version` the page read; what /etc sets is refused (409):
/// - `interval` (`value`: "30m"); `box-name` (`value`; empty for none);
/// - `pause`, `resume` and `remove` (`remote`: a name); `rename` (`remote`, `value`: the new name); `conflict`
///   (`remote`, `value`: newest, local or remote);
/// - `page-password` (`value`: the new password; empty to open the page to the home network again).
struct PageSettings: Sendable {
    let configPath: String
    /// The settings file was saved; what it did to remotes, for the store to follow.
    let saved: @Sendable ([RemoteChange]) -> Void

    func answer(_ request: SettingsRequest) -> SettingsAnswer {
        switch request {
        case .read: view()
        case .change(let form): change(form)
        }
    }

    private func view() -> SettingsAnswer {
        let check = Configuration.checked(path: configPath, readingSecrets: false)
        guard let configuration = check.configuration else {
            return .refused(status: 500, message: "The administrator's configuration has a problem: \(check.errors[0])")
        }
        let file = SettingsFile(configuration: configuration)
        let version: String
        do {
            version = "\(try file.version())"
        } catch {
            return .refused(status: 500, message: error.description)
        }
        let remotes = configuration.remotes.map { remote in
            let origin = check.origin(of: .remote(remote.name))
            let (kind, location, username): (String, String, String?) =
                switch remote.kind {
                case .carddav(let card): ("carddav", card.url, card.username)
                case .vdir(let folder, _): ("vdir", folder, nil)
                }
            return SettingsView.Remote(
                name: remote.name, kind: kind, location: location, username: username, paused: remote.paused,
                conflict: remote.conflictPolicy.rawValue, signsIn: remote.signsIn, fixed: origin.isFixed,
                origin: origin.description)
        }
        return .view(
            SettingsView(
                version: version, interval: Configuration.durationText(configuration.sync.interval),
                intervalFixed: check.origin(of: .syncInterval).isFixed, boxName: configuration.box.name,
                boxNameFixed: check.origin(of: .boxName).isFixed, pagePassword: configuration.status.password != nil,
                pagePasswordFixed: check.origin(of: .statusPassword).isFixed, remotes: remotes,
                problems: check.settingsProblems.map(\.description)))
    }

    private func change(_ form: [String: String]) -> SettingsAnswer {
        guard let text = form["version"], let version = SettingsFile.Version(text) else {
            return .refused(status: 400, message: "The form has no version of the settings: load the page again.")
        }
        let check = Configuration.checked(path: configPath, readingSecrets: false)
        guard let configuration = check.configuration else {
            return .refused(status: 500, message: "The administrator's configuration has a problem: \(check.errors[0])")
        }
        let file = SettingsFile(configuration: configuration)
        var change = Change(settings: HouseholdConfiguration(), file: file, check: check, configPath: configPath)
        do {
            let loaded = try file.load()
            change.settings = loaded.settings
            // Before any password file is written: a refused save must not have changed one.
            guard loaded.version == version else { return refusal(.changedMeanwhile(file.path)) }
        } catch {
            return .refused(status: 409, message: "The settings file cannot be changed until it is fixed: \(error)")
        }
        if let refusal = change.apply(form) { return refusal }
        do {
            try file.save(change.settings, expecting: version)
        } catch {
            for written in change.written { _ = unlink(written) }
            return refusal(error)
        }
        saved(change.remoteChanges)
        return view()
    }

    private func refusal(_ error: ConfigurationError) -> SettingsAnswer {
        let status =
            switch error.reason {
            case .changedMeanwhile: 412
            case .cannotWrite: 507
            case .invalid: 400
            }
        return .refused(status: status, message: error.description)
    }
}

/// One change asked of the settings, applied to the household's settings in memory.
private struct Change {
    var settings: HouseholdConfiguration
    let file: SettingsFile
    let check: ConfigurationCheck
    let configPath: String
    /// What the store must follow once saved.
    var remoteChanges: [RemoteChange] = []
    /// Password files written for the change: taken away again if the save fails.
    var written: [String] = []

    /// nil when applied; the refusal otherwise.
    mutating func apply(_ form: [String: String]) -> SettingsAnswer? {
        let action = form["action"] ?? ""
        let value = form["value"] ?? ""
        switch action {
        case "interval":
            if let refusal = fixed(.syncInterval, "The interval") { return refusal }
            guard let interval = Configuration.duration(value) else {
                return .refused(
                    status: 400, message: "interval: a number and a unit, such as \"30m\", \"1h\" or \"1d\".")
            }
            settings.syncInterval = interval
        case "box-name":
            if let refusal = fixed(.boxName, "The box's name") { return refusal }
            settings.boxName = value.isEmpty ? nil : value
        case "page-password":
            if let refusal = fixed(.statusPassword, "The page's password") { return refusal }
            guard !value.isEmpty else {
                settings.statusPassword = nil
                return nil
            }
            do {
                settings.statusPassword = try file.saveStatusPassword(Array(value.utf8))
                written.append(SettingsFile.statusPasswordPath(secretsDirectory: file.secretsDirectory))
            } catch {
                return .refused(status: error.reason == .cannotWrite ? 507 : 400, message: error.description)
            }
        case "pause", "resume", "remove", "rename", "conflict":
            let name = form["remote"] ?? ""
            if let refusal = fixed(.remote(name), "The address book \(name)") { return refusal }
            guard let index = settings.remotes.firstIndex(where: { $0.name == name }) else {
                return .refused(status: 400, message: "There is no address book named \(name) in the page's settings.")
            }
            return remote(action, at: index, value: value)
        default:
            return .refused(
                status: 400,
                message: "Unknown change: use interval, box-name, page-password, pause, resume, remove, rename or "
                    + "conflict.")
        }
        return nil
    }

    private mutating func remote(_ action: String, at index: Int, value: String) -> SettingsAnswer? {
        let name = settings.remotes[index].name
        switch action {
        case "pause", "resume":
            settings.remotes[index].paused = action == "pause"
        case "conflict":
            guard let policy = RemoteSettings.ConflictPolicy(rawValue: value) else {
                return .refused(status: 400, message: "conflict: newest, local or remote.")
            }
            settings.remotes[index].conflictPolicy = policy
        case "remove":
            // Its password file goes with the save; its contacts stay in the store, its sync state goes after.
            settings.remotes.remove(at: index)
            remoteChanges = [.removed(name)]
        default:
            return rename(at: index, to: value)
        }
        return nil
    }

    /// A new name, unused in both files; the password file follows it (`secrets/NAME.password`), the store's sync
    /// state too (``RemoteChange/renamed(from:to:)``).
    private mutating func rename(at index: Int, to new: String) -> SettingsAnswer? {
        let old = settings.remotes[index].name
        if let problem = RemoteSettings.nameProblem(new) { return .refused(status: 400, message: "Name: \(problem).") }
        guard new != old else { return .refused(status: 400, message: "That is its name already.") }
        let taken = (check.configuration?.remotes.map(\.name) ?? []) + settings.remotes.map(\.name)
        guard !taken.contains(new) else {
            return .refused(status: 409, message: "There is an address book named \(new) already: choose another name.")
        }
        if case .carddav(var card) = settings.remotes[index].kind {
            do {
                // Its secrets follow the name (`secrets/NAME.password`, `.client-secret`): the old files go with
                // the save, and a remote added later under the old name finds none of them.
                if card.password == .file(file.passwordPath(forRemote: old)) {
                    written.append(file.passwordPath(forRemote: new))
                    card.password = try file.savePassword(Array(try card.password.read().utf8), forRemote: new)
                }
                if let secret = card.oauth?.clientSecret, secret == .file(file.clientSecretPath(forRemote: old)) {
                    written.append(file.clientSecretPath(forRemote: new))
                    card.oauth?.clientSecret = try file.saveClientSecret(Array(try secret.read().utf8), forRemote: new)
                }
                settings.remotes[index].kind = .carddav(card)
            } catch {
                return .refused(status: 507, message: "The password could not follow the new name: \(error)")
            }
        }
        settings.remotes[index].name = new
        remoteChanges = [.renamed(from: old, to: new)]
        return nil
    }

    private func fixed(_ key: SettingKey, _ what: String) -> SettingsAnswer? {
        let origin = check.origin(of: key)
        guard origin.isFixed else { return nil }
        return .refused(
            status: 409, message: "\(what) is set by the administrator (\(origin.file ?? configPath)): change it there."
        )
    }
}
