#if canImport(Glibc)
    import Glibc
#endif

/// A test certificate authority and server certificates signed by it, made with the openssl command once per test
/// process in a temporary folder (removed when the process exits). EC P-256 keys: made in milliseconds.
///
/// - `server`: for `localhost` and `127.0.0.1`, valid for 30 days.
/// - `wrongHost`: for `wrong-host.example` only, valid.
/// - `expired`: for `localhost` and `127.0.0.1`, valid in January 2020 only (`openssl ca -startdate -enddate`:
///   openssl 3.0's `x509` command cannot set past dates).
/// - `selfSigned`: for `localhost` and `127.0.0.1`, its own issuer (as many a NAS makes), valid for 30 days.
/// - `notYetValid`: for `localhost` and `127.0.0.1`, valid from 2090 on (what a box sees before its clock is set).
///
/// A client that trusts only the system's authorities (the default) does not know the CA: that is the "unknown
/// certificate authority" case.
public final class TestCertificates: Sendable {
    /// The files of a certificate (PEM, the leaf only) and of its private key (PEM, unencrypted).
    public struct Pair: Sendable {
        public var certificate: String
        public var key: String

        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static let wrongHostName = "wrong-host.example"

    /// The folder everything is in.
    public let folder: String
    /// The CA's certificate (PEM): what `ca_file` names.
    public let authority: String
    /// A folder with the CA's certificate under its subject hash (`openssl rehash`): what `ca_path` names.
    public let hashedFolder: String
    /// A folder with the same certificate under a plain name, not hashed: OpenSSL does not find it there.
    public let unhashedFolder: String
    public let server: Pair
    public let wrongHost: Pair
    public let expired: Pair
    public let notYetValid: Pair
    public let selfSigned: Pair

    /// The certificates of this test process, made on first use.
    public static func shared() throws -> TestCertificates {
        try made.get()
    }

    private static let made: Result<TestCertificates, Failure> = {
        let folder: String
        do {
            folder = try TemporaryDirectory.make(prefix: "contactbox-certificates")
        } catch {
            return .failure(Failure(description: "mkdtemp failed: \(error)"))
        }
        do {
            let certificates = try TestCertificates(folder: folder)
            // Statics are never deinitialised: the folder goes when the process exits.
            atexit {
                if case .success(let certificates) = TestCertificates.made {
                    TemporaryDirectory.removeTree(certificates.folder)
                }
            }
            return .success(certificates)
        } catch {
            TemporaryDirectory.removeTree(folder)
            return .failure(error as? Failure ?? Failure(description: "\(error)"))
        }
    }()

    /// Makes everything in `folder`, which exists and is empty.
    private init(folder: String) throws {
        self.folder = folder
        authority = folder + "/ca.pem"
        hashedFolder = folder + "/hashed"
        unhashedFolder = folder + "/unhashed"

        let log = folder + "/openssl.log"
        func openssl(_ arguments: [String]) throws {
            let process = try ChildProcess(path: "openssl", arguments: arguments, logPath: log)
            let status = process.waitForExit()
            guard status == 0 else {
                let output = (try? readText(log)) ?? ""
                throw Failure(
                    description:
                        "openssl \(arguments.joined(separator: " ")) exited with \(status): \(output.suffix(1500))")
            }
        }
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let caKey = folder + "/ca.key"
        try openssl(
            ["req", "-x509"] + newKey + [
                "-days", "30", "-subj", "/O=ContactBox tests/CN=ContactBox Test CA", "-keyout", caKey, "-out",
                authority,
            ])

        // `openssl ca` keeps a database of what it signed; the sections name the extensions of each certificate.
        try writeText(folder + "/index.txt", "")
        try writeText(folder + "/serial", "1000\n")
        let configuration = folder + "/ca.cnf"
        try writeText(
            configuration,
            """
            [ca]
            default_ca = test_ca

            [test_ca]
            database = \(folder)/index.txt
            new_certs_dir = \(folder)
            serial = \(folder)/serial
            certificate = \(authority)
            private_key = \(caKey)
            default_md = sha256
            policy = any
            unique_subject = no

            [any]
            commonName = supplied

            [loopback]
            subjectAltName = DNS:localhost, IP:127.0.0.1
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth

            [wrong_host]
            subjectAltName = DNS:\(Self.wrongHostName)
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth

            """)
        func issue(_ name: String, commonName: String, section: String, validity: [String]) throws -> Pair {
            let pair = Pair(certificate: folder + "/" + name + ".pem", key: folder + "/" + name + ".key")
            let request = folder + "/" + name + ".csr"
            try openssl(
                ["req", "-new"] + newKey + ["-subj", "/CN=" + commonName, "-keyout", pair.key, "-out", request])
            try openssl(
                ["ca", "-config", configuration, "-batch", "-notext", "-extensions", section] + validity + [
                    "-in", request, "-out", pair.certificate,
                ])
            return pair
        }
        server = try issue("server", commonName: "localhost", section: "loopback", validity: ["-days", "30"])
        wrongHost = try issue(
            "wrong-host", commonName: Self.wrongHostName, section: "wrong_host", validity: ["-days", "30"])
        expired = try issue(
            "expired", commonName: "localhost", section: "loopback",
            validity: ["-startdate", "20200101000000Z", "-enddate", "20200201000000Z"])
        notYetValid = try issue(
            "not-yet-valid", commonName: "localhost", section: "loopback",
            validity: ["-startdate", "20900101000000Z", "-enddate", "20910101000000Z"])

        selfSigned = Pair(certificate: folder + "/self-signed.pem", key: folder + "/self-signed.key")
        try openssl(
            ["req", "-x509"] + newKey + [
                "-days", "30", "-subj", "/CN=localhost", "-addext", "subjectAltName = DNS:localhost, IP:127.0.0.1",
                "-keyout", selfSigned.key, "-out", selfSigned.certificate,
            ])

        for sub in [hashedFolder, unhashedFolder] {
            guard mkdir(sub, 0o755) == 0 else { throw Failure(description: "mkdir \(sub): errno \(errno)") }
            try writeText(sub + "/contactbox-test-ca.pem", try readText(authority))
        }
        try openssl(["rehash", hashedFolder])
    }
}

private func readText(_ path: String) throws -> String {
    guard let file = fopen(path, "rb") else {
        throw TestCertificates.Failure(description: "cannot read \(path): errno \(errno)")
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16384)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

private func writeText(_ path: String, _ text: String) throws {
    guard let file = fopen(path, "wb") else {
        throw TestCertificates.Failure(description: "cannot write \(path): errno \(errno)")
    }
    defer { fclose(file) }
    let bytes = Array(text.utf8)
    guard fwrite(bytes, 1, bytes.count, file) == bytes.count else {
        throw TestCertificates.Failure(description: "cannot write \(path): errno \(errno)")
    }
}
