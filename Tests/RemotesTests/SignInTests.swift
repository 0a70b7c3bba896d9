import Config
import Logging
import OAuth
import TestSupport
import Testing

@testable import Remotes

/// Signing in against a real OAuth 2.0 authorization server on 127.0.0.1 (the test's stand-in for Google's,
/// `OAuthStandIn`): what the issuer refuses is said in words, and nothing is stored.
@Suite(
    "Signing in at an issuer", .serialized,
    .enabled(
        if: TestRequirement.runs(missing: OAuthStandIn.unavailableReason), "\(OAuthStandIn.unavailableReason ?? "")"),
    .timeLimit(.minutes(5)))
struct SignInTests {
    @Test("a code once: again it is refused; a verifier of another attempt is refused; nothing is stored")
    func refusedCodes() throws {
        let oauth = try OAuthStandIn()
        let folder = try TemporaryDirectory(prefix: "contactbox-signin")
        let settings = SettingsFile(path: folder.file("settings.toml"), secretsDirectory: folder.file("secrets"))
        let setup = AddressBookSetup(
            settings: settings, administratorFile: "/etc/contactbox/contactbox.toml", administratorRemotes: [],
            logger: Logger(label: "test"), userAgent: "test")
        let chosen = try AddressBookSetup.issuer(
            .oauth, clientID: oauth.clientID, clientSecret: oauth.clientSecret,
            authorizationURL: oauth.authorizationURL, tokenURL: oauth.tokenURL, scope: OAuthStandIn.carddavScope)

        let attempt = AuthorizationAttempt(issuer: chosen.issuer)
        let code = try attempt.code(fromPasted: try oauth.consent(to: attempt.url).location)
        let grant = try setup.exchange(code, for: attempt)
        #expect(grant.refreshToken?.isEmpty == false)
        #expect(grant.expiresIn != nil)
        let twice = #expect(throws: SetupFailure.self) { try setup.exchange(code, for: attempt) }
        #expect(twice?.kind == .wrongPassword)
        #expect(twice?.message.contains("sign in again") == true, "\(String(describing: twice))")

        let other = AuthorizationAttempt(issuer: chosen.issuer)
        let otherCode = try other.code(fromPasted: try oauth.consent(to: other.url).location)
        let forged = AuthorizationAttempt(issuer: chosen.issuer, state: other.state, pkce: .random())
        let mismatch = #expect(throws: SetupFailure.self) { try setup.exchange(otherCode, for: forged) }
        #expect(mismatch?.kind == .wrongPassword)

        let wrongClient = try AddressBookSetup.issuer(
            .oauth, clientID: oauth.clientID, clientSecret: "not-the-secret", authorizationURL: oauth.authorizationURL,
            tokenURL: oauth.tokenURL, scope: OAuthStandIn.carddavScope)
        let third = AuthorizationAttempt(issuer: wrongClient.issuer)
        let thirdCode = try third.code(fromPasted: try oauth.consent(to: third.url).location)
        let client = #expect(throws: SetupFailure.self) { try setup.exchange(thirdCode, for: third) }
        #expect(client?.message.contains("client ID and secret") == true, "\(String(describing: client))")

        #expect(try settings.version() == .absent, "nothing was stored")
    }
}
