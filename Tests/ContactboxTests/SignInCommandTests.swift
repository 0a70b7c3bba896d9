import Foundation
import Glibc
import TestSupport
import Testing

/// `contactbox remote add --provider oauth` in a terminal-less run, as a script over SSH does it: the address to
/// open printed, consent given at the issuer (the test's stand-in for Google's, `OAuthStandIn`), the address the
/// browser ends on written to standard input; then the books found with the token, tested, added, and synced.
@Suite(
    "Signing in from the command line", .serialized,
    .enabled(if: BearerCardDAVServer.runs, "\(BearerCardDAVServer.skipNote)"), .timeLimit(.minutes(5)))
struct SignInCommandTests {
    @Test("remote add signs in: the address printed, the answer pasted, the book added with its refresh token")
    func remoteAdd() throws {
        let server = try BearerCardDAVServer()
        let oauth = server.oauth
        try server.radicale.seedCards([("ann.vcf", card("ann", "Ann Example"))])
        let work = try Workspace()
        let config = try administratorConfig(work)
        let secretFile = try work.file("client-secret", oauth.clientSecret + "\n")
        // Refused when others may read it, as a password file is.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretFile)
        // Standard input is a FIFO this test holds open for writing, so that the command waits at its prompt until
        // the answer is written; its output goes to files read as it runs.
        let paste = work.path + "/paste"
        #expect(mkfifo(paste, 0o600) == 0)
        let writer = open(paste, O_RDWR)
        try #require(writer >= 0)
        defer { close(writer) }
        let (out, err) = (work.path + "/out.log", work.path + "/err.log")
        let process = try ChildProcess(
            path: contactboxBinary,
            arguments: [
                "remote", "add", "--config", config, "--provider", "oauth", server.baseURL, "--username", oauth.user,
                "--client-id", oauth.clientID, "--client-secret-file", secretFile, "--authorization-url",
                oauth.authorizationURL, "--token-url", oauth.tokenURL, "--scope", OAuthStandIn.carddavScope, "--all",
            ], logPath: out, errorPath: err, inputPath: paste)
        defer { process.terminate() }

        // The address to open, read as it is printed.
        let url = try waitUntil("the address to open", seconds: 30) { () -> String? in
            guard process.isRunning else {
                throw TestServerFailure("remote add ended: \(ChildProcess.tail(of: out)) \(ChildProcess.tail(of: err))")
            }
            return ChildProcess.tail(of: out).split(separator: "\n").first {
                $0.hasPrefix(oauth.authorizationURL + "?")
            }.map(String.init)
        }
        let redirect = try oauth.consent(to: url)
        #expect(redirect.location.hasPrefix("http://127.0.0.1:1/contactbox?"), "\(redirect.location)")
        let line = Array((redirect.location + "\n").utf8)
        #expect(write(writer, line, line.count) == line.count)
        let status = process.waitForExit()
        let (printed, stderr) = (
            try String(contentsOfFile: out, encoding: .utf8), try String(contentsOfFile: err, encoding: .utf8)
        )
        #expect(status == 0, "\(stderr)")
        #expect(printed.contains("added contacts"), "\(printed)")
        #expect(stderr.contains("the test worked, 1 contact"), "\(stderr)")

        let settings = try work.read("store/settings.toml")
        #expect(settings.contains("auth = \"oauth\"") && settings.contains("oauth_token_url"))
        #expect(!settings.contains(oauth.clientSecret))
        let secret = try String(contentsOfFile: work.path + "/store/secrets/contacts.client-secret", encoding: .utf8)
        #expect(secret == oauth.clientSecret)
        // The daemon's own sync with the saved refresh token: the access token is renewed from it.
        let sync = try contactbox(["sync", "--config", config])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try contactbox(["show", "--db", work.db, "ann"]).stdout.contains("Ann Example"))
        #expect(try oauth.log().refreshes >= 1)
        #expect(!(sync.stdout + sync.stderr + stderr + printed).contains("1//"), "no refresh token printed")
    }

    @Test("a sync whose access token expires in the middle renews it and goes on; no token in a debug log")
    func expiryMidSync() throws {
        // Rotating refresh tokens, as some issuers do: the new one is saved for the next run.
        let server = try BearerCardDAVServer(oauth: try OAuthStandIn(rotateRefreshTokens: true))
        let oauth = server.oauth
        // Contacts of the box's own, sent one request each: the expiry falls between them.
        let count = 400
        let tokens = try oauth.issueTokens()
        let work = try Workspace()
        let cards = (0..<count).map { card("c\($0)", "Person \($0)") }.joined()
        #expect(try contactbox(["import", "--db", work.db, try work.file("in.vcf", cards)]).status == 0)
        let tokenFile = try work.file("google.password", tokens.refresh)
        let secretFile = try work.file("client-secret", oauth.clientSecret)
        for file in [tokenFile, secretFile] {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
        let config = try administratorConfig(
            work,
            blocks: """
                [[remote]]
                name = "book"
                kind = "carddav"
                url = "\(server.addressBookURL())"
                username = "\(oauth.user)"
                password_file = "\(tokenFile)"
                auth = "oauth"
                oauth_client_id = "\(oauth.clientID)"
                oauth_client_secret_file = "\(secretFile)"
                oauth_authorization_url = "\(oauth.authorizationURL)"
                oauth_token_url = "\(oauth.tokenURL)"
                oauth_scope = "\(OAuthStandIn.carddavScope)"
                """)
        let (out, err) = (work.path + "/out.log", work.path + "/err.log")
        let sync = try ChildProcess(
            path: contactboxBinary, arguments: ["sync", "--config", config], logPath: out, errorPath: err,
            environment: ["CONTACTBOX_LOG_LEVEL": "debug"])
        defer { sync.terminate() }
        // Every access token expires once the sync has begun sending cards.
        try waitUntil("the sync to send cards", seconds: 60) {
            let log = (try? String(contentsOfFile: server.accessLogPath, encoding: .utf8)) ?? ""
            return log.contains("\"PUT ") ? true : nil
        }
        try oauth.expireAccessTokens()
        let status = sync.waitForExit()
        let (stdout, stderr) = (
            try String(contentsOfFile: out, encoding: .utf8), try String(contentsOfFile: err, encoding: .utf8)
        )
        #expect(status == 0, "\(stderr.suffix(2000))")
        let sent = try FileManager.default.contentsOfDirectory(atPath: server.radicale.collectionFolder())
        #expect(sent.filter { $0.hasSuffix(".vcf") }.count == count, "every card reached the server")
        let accessLog = try String(contentsOfFile: server.accessLogPath, encoding: .utf8)
        #expect(accessLog.contains("\" 401 "), "a request was refused with the expired token")
        let log = try oauth.log()
        #expect(log.refreshes >= 2, "a token at the start, and one after the expiry: \(log.refreshes)")
        #expect(stderr.contains("Access token renewed"), "the debug log says so")
        let saved = try String(contentsOfFile: tokenFile, encoding: .utf8)
        #expect(saved != tokens.refresh, "the rotated refresh token is saved")
        for secret in [tokens.refresh, saved, tokens.access, oauth.clientSecret, "ya29."] {
            #expect(!(stdout + stderr).contains(secret), "a token or secret in the output")
        }
    }
}
