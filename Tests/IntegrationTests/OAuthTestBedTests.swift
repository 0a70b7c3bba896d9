import Foundation
import TestSupport
import Testing

/// The test bed of the box's Google accounts, tested by hand with curl: the OAuth stand-in behaves as RFC 6749 and
/// RFC 7636 (and Google) say, and the CardDAV server behind nginx admits exactly the valid bearer tokens. The box's
/// own OAuth client is tested against this bed elsewhere.
@Suite(
    "The OAuth 2.0 test bed: the authorization server stand-in, Radicale behind bearer tokens", .serialized,
    .enabled(if: BearerCardDAVServer.runs, "\(BearerCardDAVServer.skipNote)"), .timeLimit(.minutes(5)))
struct OAuthTestBedTests {
    static let propfind = #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>"#

    static func card(_ uid: String, _ name: String) -> String {
        "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:\(uid)\r\nFN:\(name)\r\nN:\(name);;;;\r\nEND:VCARD\r\n"
    }

    @Test("the code flow by hand: consent, code and state, tokens, then a PROPFIND through nginx with the bearer")
    func codeFlow() throws {
        let bed = try BearerCardDAVServer()
        let oauth = bed.oauth
        let pkce = try OAuthStandIn.PKCE()
        let state = "s+1/ é&x=y"
        let redirectURI = "http://127.0.0.1:43123/oauth/callback?keep=1"

        // The consent page, its "Allow" button, then 302 to the redirect URI with the code and the state as sent.
        let page = try curlRequest(
            "GET",
            oauth.authorizationRequestURL(redirectURI: redirectURI, state: state, challenge: pkce.challenge),
            user: nil)
        #expect(page.status == 200)
        #expect(page.body.contains(#"id="allow""#) && page.body.contains(#"action="/authorize""#))
        let redirect = try oauth.authorize(redirectURI: redirectURI, state: state, pkce: pkce)
        #expect(redirect.location.hasPrefix("http://127.0.0.1:43123/oauth/callback?keep=1&"))
        #expect(redirect.state == state)
        let code = try #require(redirect.code)
        #expect(code.hasPrefix("4/0A") && redirect.location.contains("code=4%2F0A"))

        let answer = try oauth.exchange(code: code, verifier: pkce.verifier, redirectURI: redirectURI)
        #expect(answer.status == 200, "\(answer.body)")
        #expect(answer.tokenType == "Bearer")
        #expect(answer.expiresIn == 3600)
        #expect(answer.scope == OAuthStandIn.carddavScope)
        #expect(answer.headers["cache-control"] == "no-store")
        let access = try #require(answer.accessToken)
        let refresh = try #require(answer.refreshToken)
        #expect(access.hasPrefix("ya29.") && refresh.hasPrefix("1//"))

        // Through nginx: the bearer opens the address book, nothing else does.
        try bed.radicale.seedCards([("a.vcf", Self.card("a", "Ann"))])
        let listing = try bed.request(
            "PROPFIND", bed.addressBookURL(), bearer: access, body: Self.propfind, contentType: "application/xml",
            headers: ["Depth: 1"])
        #expect(listing.status == 207, "\(listing.body)")
        #expect(listing.body.contains("/alice/contacts/a.vcf"))
        let anonymous = try bed.request(
            "PROPFIND", bed.addressBookURL(), bearer: nil, body: Self.propfind, contentType: "application/xml",
            headers: ["Depth: 1"])
        #expect(anonymous.status == 401)
        #expect(anonymous.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        let forged = try bed.request("PROPFIND", bed.addressBookURL(), bearer: "ya29.forged", headers: ["Depth: 0"])
        #expect(forged.status == 401)
        #expect(forged.headers["www-authenticate"]?.contains(#"error="invalid_token""#) == true)
        // Basic credentials are no way around it.
        let basic = try curlRequest(
            "PROPFIND", bed.addressBookURL(), headers: ["Depth: 0"], user: (RadicaleServer.username, "anything"))
        #expect(basic.status == 401)

        // Writes with their bodies and preconditions pass through to Radicale as the user of the token.
        let put = try bed.request(
            "PUT", bed.addressBookURL() + "b.vcf", bearer: access, body: Self.card("b", "Bob"),
            contentType: "text/vcard; charset=utf-8", headers: ["If-None-Match: *"])
        #expect(put.status == 201, "\(put.body)")
        let etag = try #require(put.headers["etag"])
        let again = try bed.request(
            "PUT", bed.addressBookURL() + "b.vcf", bearer: access, body: Self.card("b", "Bobby"),
            contentType: "text/vcard; charset=utf-8", headers: ["If-Match: \"stale\""])
        #expect(again.status == 412)
        let delete = try bed.request(
            "DELETE", bed.addressBookURL() + "b.vcf", bearer: access, headers: ["If-Match: \(etag)"])
        #expect(delete.status == 200 || delete.status == 204)
        #expect(bed.radicale.loggedRequests().contains { $0.contains("PUT request for '/alice/contacts/b.vcf'") })

        let log = try oauth.log()
        #expect(log.grants["authorization_code"] == 1)
        #expect(log.codesIssued == 1)
        #expect(log.tokenRequests.first?.clientAuth == "post")
        #expect(log.tokenRequests.first?.refreshTokenIssued == true)
        let authorize = try #require(log.events.first { $0.endpoint == "authorize" && $0.status == 200 })
        #expect(authorize.params?["access_type"] == "offline")
        #expect(authorize.params?["code_challenge_method"] == "S256")
        #expect(authorize.params?["state"] == nil && authorize.params?["code_challenge"] == nil)
        #expect((log.authChecks["200"] ?? 0) >= 4 && (log.authChecks["401"] ?? 0) >= 3)
        // The stand-in's own log names no token.
        #expect(!oauth.logTail().contains(access) && !oauth.logTail().contains(code))
    }

    @Test(
        "in Chromium: the consent page's Allow button sends the browser back to the loopback redirect with the code",
        .enabled(if: TestRequirement.runs(missing: ChromeDriver.missing), "\(ChromeDriver.missing ?? "")"))
    func consentInBrowser() throws {
        try #require(ChromeDriver.missing == nil, "\(ChromeDriver.missing ?? "")")
        let oauth = try OAuthStandIn()
        // Where the browser lands: a plain server that answers 404, as a client's loopback listener would stand in.
        let folder = try TemporaryDirectory()
        let port = try freeLoopbackPort()
        let listener = try ChildProcess(
            path: "/usr/bin/python3",
            arguments: ["-m", "http.server", "--bind", "127.0.0.1", "--directory", folder.path, String(port)],
            logPath: folder.file("listener.log"))
        defer { listener.terminate() }
        let listenerLog = { (try? String(contentsOfFile: folder.file("listener.log"), encoding: .utf8)) ?? "" }
        try listener.waitUntilServing(
            "the redirect listener", seconds: 20, log: listenerLog, ready: { loopbackAccepts(port: Int(port)) })
        let redirectURI = "http://127.0.0.1:\(port)/callback"
        let pkce = try OAuthStandIn.PKCE()
        let driver = try ChromeDriver()
        let session = try driver.session()
        defer { session.quit() }
        try session.navigate(
            to: oauth.authorizationRequestURL(redirectURI: redirectURI, state: "browser", challenge: pkce.challenge))
        #expect(try session.text("#user") == oauth.user)
        try session.click("#allow")
        let landed = try waitUntil("the redirect to \(redirectURI)", seconds: 15) {
            let url = try session.currentURL()
            return url.hasPrefix(redirectURI + "?") ? url : nil
        }
        let code = try #require(OAuthStandIn.redirect(landed).code)
        #expect(OAuthStandIn.redirect(landed).state == "browser")
        let answer = try oauth.exchange(code: code, verifier: pkce.verifier, redirectURI: redirectURI)
        #expect(answer.status == 200 && answer.refreshToken != nil, "\(answer.body)")
    }

    @Test("a code used twice is invalid_grant and revokes the tokens issued from it (RFC 6749 4.1.2)")
    func codeReplay() throws {
        let bed = try BearerCardDAVServer()
        let oauth = bed.oauth
        let pkce = try OAuthStandIn.PKCE()
        let code = try #require(try oauth.authorize(pkce: pkce).code)
        let first = try oauth.exchange(code: code, verifier: pkce.verifier, authentication: .basic)
        let access = try #require(first.accessToken)
        let refresh = try #require(first.refreshToken)
        #expect(try bed.request("PROPFIND", bed.addressBookURL(), bearer: access, headers: ["Depth: 0"]).status == 207)

        let second = try oauth.exchange(code: code, verifier: pkce.verifier, authentication: .basic)
        #expect(second.status == 400)
        #expect(second.error == "invalid_grant")
        #expect(second.headers["cache-control"] == "no-store")
        #expect(try bed.request("PROPFIND", bed.addressBookURL(), bearer: access, headers: ["Depth: 0"]).status == 401)
        #expect(try oauth.refresh(refresh).error == "invalid_grant")
        #expect(try oauth.log().tokenRequests.first?.clientAuth == "basic")
    }

    @Test("PKCE: a wrong verifier, a missing one, no challenge or a plain one are refused")
    func pkce() throws {
        let oauth = try OAuthStandIn()
        let pkce = try OAuthStandIn.PKCE()
        let code = try #require(try oauth.authorize(pkce: pkce).code)
        let wrong = try oauth.exchange(code: code, verifier: try OAuthStandIn.PKCE().verifier)
        #expect(wrong.status == 400)
        #expect(wrong.error == "invalid_grant")

        let other = try #require(try oauth.authorize(pkce: pkce).code)
        let missing = try oauth.tokenRequest([
            ("grant_type", "authorization_code"), ("code", other), ("redirect_uri", "http://127.0.0.1:9/callback"),
        ])
        #expect(missing.error == "invalid_request")

        // A challenge without S256, or none: an error back at the redirect URI, with the state.
        for query in ["&code_challenge=\(pkce.challenge)&code_challenge_method=plain", ""] {
            let url =
                oauth.authorizationURL + "?response_type=code&client_id=" + oauth.clientID
                + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb&scope="
                + OAuthStandIn.formEncoded(OAuthStandIn.carddavScope)
                + "&state=st" + query
            let answer = try curlRequest("GET", url, user: nil, includeHeaders: true)
            #expect(answer.status == 302)
            #expect(answer.headers["location"]?.contains("error=invalid_request") == true)
            #expect(answer.headers["location"]?.contains("state=st") == true)
        }
    }

    @Test("the authorization endpoint: an unknown client or a non-loopback redirect is never redirected to; Deny")
    func authorizationErrors() throws {
        let oauth = try OAuthStandIn()
        let pkce = try OAuthStandIn.PKCE()
        let external = oauth.authorizationRequestURL(
            redirectURI: "https://attacker.example/cb", state: "x", challenge: pkce.challenge)
        let refused = try curlRequest("GET", external, user: nil, includeHeaders: true)
        #expect(refused.status == 400)
        #expect(refused.headers["location"] == nil)
        let unknownClient = try curlRequest(
            "GET", external.replacingOccurrences(of: "client_id=contactbox-test", with: "client_id=someone-else"),
            user: nil, includeHeaders: true)
        #expect(unknownClient.status == 400)

        let denied = try oauth.authorize(redirectURI: "http://localhost:8123/", state: "d", pkce: pkce, allow: false)
        #expect(denied.error == "access_denied")
        #expect(denied.state == "d")
        #expect(denied.code == nil)

        let badScope = try oauth.authorize(pkce: pkce, scope: "https://www.googleapis.com/auth/gmail.readonly")
        #expect(badScope.error == "invalid_scope")
        // Without access_type=offline, as at Google: an access token and no refresh token.
        let online = try #require(try oauth.authorize(pkce: pkce, offline: false).code)
        let answer = try oauth.exchange(code: online, verifier: pkce.verifier)
        #expect(answer.accessToken != nil && answer.refreshToken == nil)
    }

    @Test("the token endpoint's errors follow RFC 6749 5.2")
    func tokenErrors() throws {
        let oauth = try OAuthStandIn()
        let (_, refresh) = try oauth.issueTokens()
        let wrongSecret = try curlRequest(
            "POST", oauth.tokenURL,
            body: OAuthStandIn.formEncoded([
                ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", oauth.clientID),
                ("client_secret", "wrong"),
            ]), contentType: "application/x-www-form-urlencoded", user: nil, includeHeaders: true)
        #expect(wrongSecret.status == 401)
        #expect(wrongSecret.body.contains(#""error": "invalid_client""#))
        #expect(wrongSecret.headers["cache-control"] == "no-store")
        #expect(try oauth.tokenRequest([("grant_type", "password")]).error == "unsupported_grant_type")
        #expect(try oauth.tokenRequest([("refresh_token", refresh)]).error == "invalid_request")
        #expect(
            try oauth.tokenRequest([("grant_type", "refresh_token"), ("refresh_token", "1//unknown")]).error
                == "invalid_grant")
        let wider = try oauth.tokenRequest([
            ("grant_type", "refresh_token"), ("refresh_token", refresh),
            ("scope", OAuthStandIn.carddavScope + " email"),
        ])
        #expect(wider.error == "invalid_scope")
        let json = try curlRequest(
            "POST", oauth.tokenURL, body: #"{"grant_type":"refresh_token"}"#, contentType: "application/json",
            user: nil)
        #expect(json.status == 400 && json.body.contains("invalid_request"))
    }

    @Test(
        "a refresh answers a new access token; expired tokens get 401 through nginx; after a revocation, invalid_grant")
    func refreshExpireRevoke() throws {
        let bed = try BearerCardDAVServer()
        let oauth = bed.oauth
        let (access, refresh) = try oauth.issueTokens()
        #expect(try bed.request("PROPFIND", bed.addressBookURL(), bearer: access, headers: ["Depth: 0"]).status == 207)

        try oauth.expireAccessTokens()
        let expired = try bed.request("PROPFIND", bed.addressBookURL(), bearer: access, headers: ["Depth: 0"])
        #expect(expired.status == 401)
        #expect(expired.headers["www-authenticate"]?.contains("invalid_token") == true)

        let renewed = try oauth.refresh(refresh, authentication: .basic)
        #expect(renewed.status == 200, "\(renewed.body)")
        let newAccess = try #require(renewed.accessToken)
        #expect(newAccess != access)
        // Like Google: no new refresh token; the old one goes on.
        #expect(renewed.refreshToken == nil)
        #expect(
            try bed.request("PROPFIND", bed.addressBookURL(), bearer: newAccess, headers: ["Depth: 0"]).status == 207)
        #expect(try oauth.refresh(refresh).status == 200)

        try oauth.revoke(user: oauth.user)
        let revoked = try oauth.refresh(refresh)
        #expect(revoked.status == 400)
        #expect(revoked.error == "invalid_grant")
        #expect(
            try bed.request("PROPFIND", bed.addressBookURL(), bearer: newAccess, headers: ["Depth: 0"]).status == 401)

        let log = try oauth.log()
        #expect(log.grants == ["authorization_code": 1, "refresh_token": 2])
        #expect(log.refreshes == 2)
        #expect(log.tokenRequests.last?.error == "invalid_grant")
        #expect(log.tokenRequests.last?.grantType == "refresh_token")
    }

    @Test("a short access lifetime expires by itself; RFC 7662 introspection tells active from inactive")
    func lifetimeAndIntrospection() throws {
        let oauth = try OAuthStandIn(accessLifetime: 1)
        let (access, refresh) = try oauth.issueTokens()
        func introspect(_ token: String) throws -> String {
            try curlRequest(
                "POST", oauth.introspectionURL, body: OAuthStandIn.formEncoded([("token", token)]),
                contentType: "application/x-www-form-urlencoded", user: (oauth.clientID, oauth.clientSecret)
            ).body
        }
        let active = try introspect(access)
        #expect(active.contains(#""active": true"#) && active.contains(#""sub": "alice""#))
        #expect(active.contains(#""scope": "https://www.googleapis.com/auth/carddav""#))
        let check = try curlRequest("GET", oauth.authCheckURL, headers: ["Authorization: Bearer " + access], user: nil)
        #expect(check.status == 200)
        usleep(2_100_000)
        #expect(try introspect(access) == #"{"active": false}"#)
        #expect(
            try curlRequest("GET", oauth.authCheckURL, headers: ["Authorization: Bearer " + access], user: nil).status
                == 401)
        #expect(try introspect(refresh).contains(#""active": true"#))
        let unauthenticated = try curlRequest(
            "POST", oauth.introspectionURL, body: "token=" + access, contentType: "application/x-www-form-urlencoded",
            user: nil)
        #expect(unauthenticated.status == 401)
    }
}
