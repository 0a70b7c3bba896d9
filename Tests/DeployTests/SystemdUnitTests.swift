import Glibc
import TestSupport
import Testing

/// Deploy/contactbox.service: systemd accepts it, it has what the daemon and the box need, and its sandbox stays tight.
@Suite struct SystemdUnitTests {
    static let unitPath = repositoryRoot + "/Deploy/contactbox.service"
    static let systemdAnalyze = findTool("systemd-analyze")

    /// The highest `systemd-analyze security` exposure accepted (0 = locked down, 10 = none). Measured with
    /// systemd 252: 1.7; what is left is the network, the GPIO devices and the gpio group the daemon needs.
    static let exposureLimit = 2.0

    /// The unit as in the repository, with ExecStart= pointing at a stub: `systemd-analyze verify` insists that
    /// the program exists.
    static func stagedUnit(in scratch: TemporaryDirectory) throws -> String {
        guard let text = readFile(unitPath) else {
            throw DeployTestFailure(description: "cannot read \(unitPath)")
        }
        let stub = scratch.file("contactbox")
        try writeFile(stub, "#!/bin/sh\nexit 0\n", mode: 0o755)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("ExecStart=/usr/local/bin/contactbox ")
                ? "ExecStart=" + stub + line.dropFirst("ExecStart=/usr/local/bin/contactbox".count) : String(line)
        }
        let unit = scratch.file("contactbox.service")
        try writeFile(unit, lines.joined(separator: "\n"))
        return unit
    }

    @Test(.enabled(if: systemdAnalyze != nil, "needs systemd-analyze (package systemd)"))
    func systemdAnalyzeVerifyAcceptsTheUnit() throws {
        let scratch = try TemporaryDirectory()
        let unit = try Self.stagedUnit(in: scratch)
        let result = try runCommand(Self.systemdAnalyze!, ["verify", "--man=no", unit])
        #expect(result.status == 0, "systemd-analyze verify: \(result.output)")
        // Unknown or misspelt directives, bad values and missing programs are warnings that name the unit; other
        // units' complaints (from the host's own unit files) are not ours.
        let ours = result.output.split(separator: "\n").filter { $0.contains("contactbox") }
        #expect(ours.isEmpty, "warnings about the unit:\n\(ours.joined(separator: "\n"))")
    }

    @Test func unitHasWhatTheDaemonNeeds() throws {
        let unit = UnitFile(text: readFile(Self.unitPath) ?? "")

        #expect(unit.words("Wants", in: "Unit").contains("network-online.target"))
        #expect(unit.words("After", in: "Unit").isSuperset(of: ["network-online.target", "time-sync.target"]))
        #expect(unit.value("WantedBy", in: "Install") == "multi-user.target")

        // Lifecycle: sd_notify readiness and watchdog, reload by SIGHUP, restart when it fails.
        #expect(unit.value("Type") == "notify")
        #expect(unit.value("NotifyAccess") == "main")
        #expect(unit.value("ExecStart") == "/usr/local/bin/contactbox run")
        #expect(unit.value("ExecReload") == "/bin/sh -c 'kill -HUP \"$$MAINPID\"'")
        #expect(unit.value("WatchdogSec") == "60")
        #expect(unit.value("Restart") == "on-failure")
        #expect(unit.value("RestartSec") == "5")
        // A configuration error (exit 78) is not restarted in a loop.
        #expect(unit.value("RestartPreventExitStatus") == "78")
        #expect(unit.value("TimeoutStopSec") == "10")

        // Identity and files.
        #expect(unit.value("User") == "contactbox")
        #expect(unit.value("Group") == "contactbox")
        #expect(unit.words("SupplementaryGroups") == ["gpio"])
        #expect(unit.value("StateDirectory") == "contactbox")
        #expect(unit.value("StateDirectoryMode") == "0700")
        #expect(unit.value("ConfigurationDirectory") == "contactbox")
        #expect(unit.value("UMask") == "0077")
        #expect(unit.value("MemoryHigh") != nil)
        #expect(unit.value("MemoryMax") != nil)
        // Credentials are documented, not enabled: which ones depends on the configuration.
        #expect(unit.commentedSettings.contains { $0.hasPrefix("LoadCredential=icloud:/etc/contactbox/") })
        #expect(unit.values("LoadCredential").isEmpty)
    }

    @Test func unitIsSandboxedButKeepsGPIOAndNetwork() throws {
        let unit = UnitFile(text: readFile(Self.unitPath) ?? "")
        let expected = [
            "ProtectSystem": "strict", "ProtectHome": "yes", "NoNewPrivileges": "yes", "PrivateTmp": "yes",
            "DevicePolicy": "closed", "ProtectKernelTunables": "yes", "ProtectKernelModules": "yes",
            "ProtectControlGroups": "yes", "RestrictNamespaces": "yes", "LockPersonality": "yes",
            "MemoryDenyWriteExecute": "yes", "SystemCallArchitectures": "native", "CapabilityBoundingSet": "",
        ]
        for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(unit.value(key) == value, "\(key)=")
        }
        // The GPIO character devices, by their driver name in /proc/devices (every /dev/gpiochipN).
        #expect(unit.values("DeviceAllow") == ["char-gpiochip rw"])
        #expect(unit.words("RestrictAddressFamilies") == ["AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"])
        // PrivateUsers= would turn the gpio group into "nobody" inside the sandbox: no access to /dev/gpiochip*.
        #expect(unit.value("PrivateUsers") == nil)
        // PrivateDevices= would hide /dev/gpiochip* altogether.
        #expect(unit.value("PrivateDevices") == nil)
    }

    @Test(.enabled(if: systemdAnalyze != nil, "needs systemd-analyze (package systemd)"))
    func securityExposureIsLow() throws {
        let scratch = try TemporaryDirectory()
        let unit = try Self.stagedUnit(in: scratch)
        let result = try runCommand(Self.systemdAnalyze!, ["security", "--offline=yes", "--no-pager", unit])
        #expect(result.status == 0, "systemd-analyze security: \(result.output)")
        let marker = "Overall exposure level for contactbox.service: "
        guard let line = result.output.split(separator: "\n").first(where: { $0.contains(marker) }),
            let range = line.range(of: marker)
        else {
            Issue.record("no overall exposure level in:\n\(result.output)")
            return
        }
        let figure = line[range.upperBound...].prefix { $0.isNumber || $0 == "." }
        let score = Double(figure) ?? 99
        print("systemd-analyze security: exposure \(figure) (limit \(Self.exposureLimit))")
        #expect(score <= Self.exposureLimit, "\(line)")
    }
}
