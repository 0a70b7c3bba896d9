import Glibc
import SystemSupport

/// Merges the settings file into the administrator's configuration, for
/// ``Configuration/checked(path:boardsDirectory:readingSecrets:)``.
struct SettingsMerge {
    let path: String
    let secretsDirectory: String
    let readingSecrets: Bool
    let boardsDirectory: String?

    /// The administrator's values stay; the settings file adds what /etc leaves unset and its remotes. Origins of
    /// the administrator's settings are in `check` already: whatever has one is fixed.
    func merge(into configuration: inout Configuration, check: inout ConfigurationCheck) {
        // No settings file is a box nobody has set up from the page yet: nothing to say.
        guard access(path, F_OK) == 0 || errno != ENOENT else { return }
        let bytes: [UInt8]
        do {
            bytes = try SmallFile.read(path, limit: Configuration.sizeLimit)
        } catch {
            check.settingsProblems.append(ConfigurationError(file: path, message: error.message))
            failClosed(&configuration, check: check)
            return
        }
        let result = HouseholdConfiguration.validate(bytes: bytes, path: path, secretsDirectory: secretsDirectory)
        guard let household = result.household else {
            check.settingsProblems += result.errors
            failClosed(&configuration, check: check)
            return
        }
        check.household = household
        func take(_ key: SettingKey) -> Bool {
            guard check.origins[key] == nil, let line = result.lines[key] else { return false }
            check.origins[key] = SettingOrigin(source: .settings, file: path, line: line)
            return true
        }
        if let interval = household.syncInterval, take(.syncInterval) { configuration.sync.interval = interval }
        if let name = household.boxName, take(.boxName) { configuration.box.name = name }
        if let password = household.statusPassword, take(.statusPassword) {
            // Kept even when it cannot be read: a page that had a password must not open up because its file broke.
            configuration.status.password = password
            if readingSecrets {
                let status = Configuration(remotes: [], status: StatusSettings(password: password))
                check.settingsProblems += status.secretProblems(path: path).map {
                    at(result.lines[.statusPassword], $0)
                }
            }
        }
        for remote in household.remotes {
            add(remote, line: result.lines[.remote(remote.name)], to: &configuration, check: &check)
        }
    }

    private func add(
        _ remote: RemoteSettings, line: Int?, to configuration: inout Configuration, check: inout ConfigurationCheck
    ) {
        func leaveOut(_ key: String?, _ message: String) {
            check.settingsProblems.append(
                ConfigurationError(file: path, line: line, key: key, message: "remote \"\(remote.name)\": " + message))
        }
        if let first = configuration.remotes.first(where: { $0.name == remote.name }) {
            let place = check.origin(of: .remote(first.name))
            leaveOut(
                "name",
                "the administrator's file has a remote of this name (\(place.description)); each needs its own, and "
                    + "this one is left out")
            return
        }
        guard configuration.remotes.count < Configuration.remoteLimit else {
            leaveOut(
                "remote",
                "left out: both files together may hold at most \(Configuration.remoteLimit) remotes")
            return
        }
        let alone = Configuration(remotes: [remote])
        if readingSecrets {
            let problems = alone.secretProblems(path: path)
            guard problems.isEmpty else {
                check.settingsProblems += problems.map { at(line, $0) }
                return
            }
        }
        if let boardsDirectory {
            check.settingsProblems += alone.boxProblems(path: path, boardsDirectory: boardsDirectory).map {
                at(line, $0)
            }
        }
        configuration.remotes.append(remote)
        check.origins[.remote(remote.name)] = SettingOrigin(source: .settings, file: path, line: line)
    }

    /// A settings file that cannot be used may still have guarded the status page with a password: when /etc sets
    /// none and the page's password file is there, it keeps guarding the page rather than the page opening up.
    private func failClosed(_ configuration: inout Configuration, check: ConfigurationCheck) {
        let file = SettingsFile.statusPasswordPath(secretsDirectory: secretsDirectory)
        guard check.origins[.statusPassword] == nil, configuration.status.password == nil, SmallFile.exists(file)
        else { return }
        configuration.status.password = .file(file)
    }

    private func at(_ line: Int?, _ problem: ConfigurationError) -> ConfigurationError {
        var problem = problem
        if problem.line == nil { problem.line = line }
        return problem
    }
}
