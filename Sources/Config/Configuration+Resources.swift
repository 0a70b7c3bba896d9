import Glibc
import SystemSupport

extension Configuration {
    /// What a valid file may still get wrong about the box it runs on (for `check-config`): its passwords
    /// (``secretProblems(path:)``), then CA files and vdir folders that are not there, and the board file.
    ///
    /// `path` is the configuration file, which the problems name; they carry no line (the values are fine, the
    /// files they name are not). The board file `[panel]` names is read from `boardsDirectory` and checked too; its
    /// problems name the board file and their lines.
    public func resourceProblems(
        path: String, boardsDirectory: String = BoardConfiguration.directory()
    ) -> [ConfigurationError] {
        secretProblems(path: path) + boxProblems(path: path, boardsDirectory: boardsDirectory)
    }

    /// Password files that are open to others, not regular files (a FIFO, which must not hang the
    /// reader), empty, of more than one line or holding a NUL byte; credentials not passed in. Reads each password
    /// to check it, and forgets it. Part of ``check(path:)``: the daemon refuses these at start and on SIGHUP, as
    /// `check-config` does, rather than finding them at the first login.
    public func secretProblems(path: String) -> [ConfigurationError] {
        var problems: [ConfigurationError] = []
        if let password = status.password {
            do {
                _ = try password.read()
            } catch {
                let key = error.key ?? "password_file"
                problems.append(ConfigurationError(file: path, key: key, message: "[status] " + error.description))
            }
        }
        if let https = status.https {
            do {
                _ = try https.read()
            } catch {
                problems.append(
                    ConfigurationError(file: path, key: error.key, message: "[status] " + error.description))
            }
        }
        for remote in remotes {
            guard case .carddav(let card) = remote.kind, !card.password.isMissingFile else { continue }
            let password = card.password
            do {
                _ = try password.read()
            } catch {
                problems.append(
                    ConfigurationError(
                        file: path, key: error.key ?? "password_file",
                        message: "remote \"\(remote.name)\": " + error.description))
            }
        }
        return problems
    }

    /// What the box may still lack and the daemon reports as it runs rather than refusing to start (a disk not
    /// mounted yet, a panel unplugged, a remote whose password file the household has not put there yet: the
    /// example configuration's): CA files, vdir folders, the board file and remotes' missing password files.
    public func boxProblems(path: String, boardsDirectory: String) -> [ConfigurationError] {
        var problems: [ConfigurationError] = []
        if !panel.isSimulated {
            let board = panel.boardPath(boardsDirectory: boardsDirectory)
            problems += BoardConfiguration.validate(path: board, boardsDirectory: boardsDirectory).errors
        }
        func problem(_ remote: RemoteSettings, _ key: String, _ message: String) {
            problems.append(ConfigurationError(file: path, key: key, message: "remote \"\(remote.name)\": " + message))
        }
        for remote in remotes {
            switch remote.kind {
            case .carddav(let card):
                let (password, caFile, caPath) = (card.password, card.caFile, card.caPath)
                if password.isMissingFile {
                    problem(remote, "password_file", "\(password): cannot read: " + SystemError.text(ENOENT))
                }
                if let caFile, access(caFile, R_OK) != 0 {
                    problem(
                        remote, "ca_file",
                        "cannot read ca_file \(Configuration.shown(caFile)): " + SystemError.text(errno))
                } else if let caFile, let message = CertificateAuthorities.caFileProblem(caFile) {
                    problem(remote, "ca_file", message)
                }
                if let caPath, !SmallFile.isDirectory(caPath) {
                    problem(remote, "ca_path", "ca_path \(Configuration.shown(caPath)) is not a folder")
                } else if let caPath, let message = CertificateAuthorities.caPathProblem(caPath) {
                    problem(remote, "ca_path", message)
                }
            case .vdir(let folder, let createFolder):
                if SmallFile.isDirectory(folder) {
                    if access(folder, R_OK | W_OK | X_OK) != 0 {
                        let reason = SystemError.text(errno)
                        problem(remote, "folder", "cannot write to folder \(Configuration.shown(folder)): " + reason)
                    }
                } else if SmallFile.exists(folder) {
                    problem(remote, "folder", "folder \(Configuration.shown(folder)) is not a folder")
                } else if !createFolder {
                    problem(
                        remote, "folder",
                        "folder \(Configuration.shown(folder)) does not exist: create it (is the disk mounted?) or set create_folder = true"
                    )
                }
            }
        }
        return problems
    }
}
