import Foundation
import TestSupport
import Testing

/// Signing in with OAuth from the page, in Chromium at phone width, against the daemon itself: an OAuth 2.0
/// authorization server on 127.0.0.1 (the test's stand-in for Google's, `OAuthStandIn`) and a Radicale behind
/// nginx that admits only its bearer tokens (`BearerCardDAVServer`). The person consents at the issuer, copies
/// the loopback address the browser ends on into the page, and the box syncs with tokens it renews itself.
@Suite(
    "Signing in with OAuth from the page, end to end", .serialized,
    .enabled(if: BearerCardDAVServer.runs, "\(BearerCardDAVServer.skipNote)"),
    .enabled(if: TestRequirement.runs(missing: ChromeDriver.missing), "\(ChromeDriver.missing ?? "")"),
    .timeLimit(.minutes(5)))
struct SignInBrowserTests {
    @Test(
        "sign in, a wrong paste refused, consent, paste, add, sync; renewed on expiry; revoked: login; signed in again")
    func signIn() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let server = try BearerCardDAVServer()
        let oauth = server.oauth
        try server.radicale.seedCards([("ann.vcf", card("ann", "Ann Example"))])
        let box = try FreshBox()
        let (work, port, page) = (box.work, box.port, box.page)

        let driver = try ChromeDriver()
        let phone = try driver.session(width: HouseholdBrowserTests.phoneWidth)
        try phone.navigate(to: page)
        try phone.waitForAttribute("data-state", of: "#state", toBe: "setup")
        try box.pair(phone)
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "idle")

        // Another server that signs in: its address, the account, the client, the issuer's addresses.
        try phone.click("#setup-providers input[value=oauth]")
        #expect(try phone.attribute("hidden", of: "#setup-password") != nil, "no password is asked for")
        for (field, value) in [
            ("setup-address", server.baseURL), ("setup-username", oauth.user), ("setup-client-id", oauth.clientID),
            ("setup-client-secret", oauth.clientSecret), ("setup-authorization-url", oauth.authorizationURL),
            ("setup-token-url", oauth.tokenURL), ("setup-scope", OAuthStandIn.carddavScope),
        ] {
            _ = try phone.execute(
                "document.getElementById(arguments[0]).value = arguments[1]", [.string(field), .string(value)])
        }
        try phone.click("#setup-find-button")
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "signingIn")
        let link = try #require(try phone.attribute("href", of: "#setup-signin-link"))
        #expect(link.hasPrefix(oauth.authorizationURL + "?"), "\(link)")
        #expect(link.contains("code_challenge_method=S256"))
        #expect(!link.contains(oauth.clientSecret), "the secret goes to the token endpoint only")
        #expect(try phone.saveScreenshot("signin-1-open").isPNG)

        // An address from another sign-in is refused, and the sign-in stays open.
        try phone.sendKeys("http://127.0.0.1:1/contactbox?state=not-this-one&code=4%2F0Aforged", to: "#setup-pasted")
        try phone.click("#setup-signin-button")
        try phone.waitForText(of: "#setup-status", containing: "belongs to another sign-in")
        #expect(try phone.attribute("data-phase", of: "#setup") == "signingIn")

        // Consent at the issuer; the browser ends on the loopback address, which it cannot open.
        try phone.navigate(to: link)
        try phone.click("#allow")
        let landed = try waitUntil("the redirect to the loopback address") {
            let url = try phone.currentURL()
            return url.hasPrefix("http://127.0.0.1:1/contactbox?") ? url : nil
        }
        #expect(landed.contains("code="), "\(landed)")
        try phone.navigate(to: page)
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "signingIn")
        _ = try phone.execute("document.getElementById('setup-pasted').value = arguments[0]", [.string(landed)])
        try phone.click("#setup-signin-button")
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "found", seconds: 60)
        let book = try phone.waitForElement("#setup-books input[name=book]")
        #expect(try phone.attribute("value", of: book) == server.addressBookURL())
        try phone.click("#setup-add-button")
        try phone.waitForText(of: "#setup-status", containing: "the first sync starts now", seconds: 60)
        try phone.waitForElement("#remotes li.remote.result-ok", seconds: 60)
        try phone.waitForText(of: "#contacts", containing: "1")
        #expect(try phone.saveScreenshot("signin-2-synced").isPNG)
        #expect(try contactbox(["show", "--db", work.db, "ann"]).stdout.contains("Ann Example"))

        // The refresh token is kept as a password is, and shown nowhere.
        let secrets = try FileManager.default.contentsOfDirectory(atPath: work.path + "/store/secrets")
        let tokenFile = try #require(secrets.first { $0.hasSuffix(".password") })
        let refreshToken = try String(contentsOfFile: work.path + "/store/secrets/" + tokenFile, encoding: .utf8)
        #expect(refreshToken.hasPrefix("1//"), "\(refreshToken.prefix(3))")
        let settings = try work.read("store/settings.toml")
        #expect(settings.contains("auth = \"oauth\"") && !settings.contains(refreshToken))
        #expect(!settings.contains(oauth.clientSecret))
        let status = try HTTPTestClient.request(port: port, path: "/api/status").body
        #expect(!status.contains(refreshToken) && !status.contains("ya29."))

        // Every access token expires: the next sync renews its own and goes on.
        let refreshes = try oauth.log().refreshes
        try oauth.expireAccessTokens()
        try phone.click("#sync-now")
        try waitUntil("a renewed token", seconds: 60) { try oauth.log().refreshes > refreshes ? true : nil }
        let renewed = RunCommandTests().waitForStatus(port: port, seconds: 60) {
            $0.contains("\"state\":\"idle\"") && $0.contains("\"last_result\":\"ok\"")
        }
        #expect(renewed.contains("\"contacts\":1"), "\(renewed)")

        // The grant revoked at the issuer: the login look, and the page says what to do.
        try oauth.revoke()
        try oauth.expireAccessTokens()
        // The button rests 2 s after a press.
        try waitUntil("Sync now to be offered again") {
            try phone.property("disabled", of: "#sync-now") == .bool(false) ? true : nil
        }
        try phone.click("#sync-now")
        let refused = RunCommandTests().waitForStatus(port: port, seconds: 60) {
            $0.contains("\"attention\":\"login\"")
        }
        #expect(refused.contains("sign in again"), "\(refused)")
        #expect(try phone.saveScreenshot("signin-3-revoked").isPNG)

        // Sign in again, from the address book's Change: one click, consent, paste; syncing again.
        let remote = #"#settings-remotes li[data-name="contacts"]"#
        _ = try phone.execute("document.querySelector('\(remote) details').open = true")
        try phone.click(remote + " button.sign-in-again")
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "signingIn")
        let again = try #require(try phone.attribute("href", of: "#setup-signin-link"))
        try phone.navigate(to: again)
        try phone.click("#allow")
        let landedAgain = try waitUntil("the redirect to the loopback address") {
            let url = try phone.currentURL()
            return url.hasPrefix("http://127.0.0.1:1/contactbox?") ? url : nil
        }
        try phone.navigate(to: page)
        try phone.waitForAttribute("data-phase", of: "#setup", toBe: "signingIn")
        _ = try phone.execute("document.getElementById('setup-pasted').value = arguments[0]", [.string(landedAgain)])
        try phone.click("#setup-signin-button")
        try phone.waitForText(of: "#setup-status", containing: "Signed in again: contacts", seconds: 60)
        let back = RunCommandTests().waitForStatus(port: port, seconds: 60) {
            $0.contains("\"state\":\"idle\"") && $0.contains("\"last_result\":\"ok\"")
        }
        #expect(back.contains("\"attention\":null"), "\(back)")
        let newToken = try String(contentsOfFile: work.path + "/store/secrets/" + tokenFile, encoding: .utf8)
        #expect(newToken != refreshToken, "the new sign-in's refresh token replaced the revoked one")
        let log = try work.read("daemon.log")
        #expect(!log.contains(refreshToken) && !log.contains(newToken) && !log.contains("ya29."))
        #expect(!log.contains(oauth.clientSecret))
    }
}
