import Config
import StatusServer

/// The settings a paired browser reads and changes on the status page: read from both files as the daemon runs
/// them (`Configuration.checked`), changed in the settings file through `SettingsFile` (the path the command line
/// takes too), after which `saved` asks the main loop to reload, as SIGHUP does: a pass that runs meanwhile ends
/// with the settings it started with. Runs on the status server's thread.
///
/// The changes a form may ask (`action`): `interval` (`value`: "30m"), `pause` and `resume` (`remote`: a name),
/// `box-name` (`value`; empty for none). Each with the `version` the page read; what /etc sets is refused (409).
struct PageSettings: Sendable {
    let configPath: String
    let saved: @Sendable () -> Void

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
        let version: String
        do {
            version = "\(try SettingsFile(configuration: configuration).version())"
        } catch {
            return .refused(status: 500, message: error.description)
        }
        let remotes = configuration.remotes.map { remote in
            let origin = check.origin(of: .remote(remote.name))
            let (kind, location, username): (String, String, String?) =
                switch remote.kind {
                case .carddav(let url, let username, _, _, _, _, _): ("carddav", url, username)
                case .vdir(let folder, _): ("vdir", folder, nil)
                }
            return SettingsView.Remote(
                name: remote.name, kind: kind, location: location, username: username, paused: remote.paused,
                fixed: origin.isFixed, origin: origin.description)
        }
        return .view(
            SettingsView(
                version: version, interval: Configuration.durationText(configuration.sync.interval),
                intervalFixed: check.origin(of: .syncInterval).isFixed, boxName: configuration.box.name,
                boxNameFixed: check.origin(of: .boxName).isFixed, remotes: remotes,
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
        var settings: HouseholdConfiguration
        do {
            settings = try file.load().settings
        } catch {
            return .refused(status: 409, message: "The settings file cannot be changed until it is fixed: \(error)")
        }
        func fixed(_ key: SettingKey, _ what: String) -> SettingsAnswer? {
            let origin = check.origin(of: key)
            guard origin.isFixed else { return nil }
            return .refused(
                status: 409,
                message: "\(what) is set by the administrator (\(origin.file ?? configPath)): change it there.")
        }
        switch form["action"] ?? "" {
        case "interval":
            if let refusal = fixed(.syncInterval, "The interval") { return refusal }
            guard let value = form["value"], let interval = Configuration.duration(value) else {
                return .refused(
                    status: 400, message: "interval: a number and a unit, such as \"30m\", \"1h\" or \"1d\".")
            }
            settings.syncInterval = interval
        case let action where action == "pause" || action == "resume":
            let name = form["remote"] ?? ""
            if let refusal = fixed(.remote(name), "The address book \(name)") { return refusal }
            guard let index = settings.remotes.firstIndex(where: { $0.name == name }) else {
                return .refused(status: 400, message: "There is no address book named \(name) in the page's settings.")
            }
            settings.remotes[index].paused = action == "pause"
        case "box-name":
            if let refusal = fixed(.boxName, "The box's name") { return refusal }
            let value = form["value"] ?? ""
            settings.boxName = value.isEmpty ? nil : value
        default:
            return .refused(status: 400, message: "Unknown change: use interval, pause, resume or box-name.")
        }
        do {
            try file.save(settings, expecting: version)
        } catch {
            let status =
                switch error.reason {
                case .changedMeanwhile: 412
                case .cannotWrite: 507
                case .invalid: 400
                }
            return .refused(status: status, message: error.description)
        }
        saved()
        return view()
    }
}
