import SystemSupport
import Testing

@testable import OAuth

@Suite("Signing in: PKCE, the authorization address, the answer pasted back, the token endpoint's JSON")
struct AuthorizationTests {
    static let issuer = OAuthIssuer(
        authorizationURL: "https://accounts.example/o/oauth2/v2/auth", tokenURL: "https://oauth2.example/token",
        scope: "https://www.googleapis.com/auth/carddav", clientID: "123-abc.apps.example", clientSecret: "s3cret")

    @Test("the S256 challenge of RFC 7636's example; random verifiers are 43 unreserved characters, never the same")
    func pkce() {
        // RFC 7636, appendix B.
        #expect(
            PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").challenge
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let one = PKCE.random()
        let two = PKCE.random()
        #expect(one.verifier.utf8.count == 43)
        #expect(one.verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(one != two)
        #expect(PKCE.base64URL([0xFB, 0xFF]) == "-_8")
        #expect(PKCE.base64URL(Array("foobar".utf8)) == "Zm9vYmFy")
    }

    @Test("the address to open asks for a code with PKCE, the CardDAV scope, offline access and this state")
    func address() throws {
        let attempt = AuthorizationAttempt(
            issuer: Self.issuer, loginHint: "ann@example.org", state: "st-1",
            pkce: PKCE(verifier: "v" + String(repeating: "x", count: 42)))
        let url = attempt.url
        #expect(url.hasPrefix("https://accounts.example/o/oauth2/v2/auth?response_type=code&"))
        let query = try #require(FormEncoding.decode(url.split(separator: "?")[1].utf8))
        #expect(query["client_id"] == "123-abc.apps.example")
        #expect(query["redirect_uri"] == OAuthIssuer.loopbackRedirect)
        #expect(query["scope"] == "https://www.googleapis.com/auth/carddav")
        #expect(query["state"] == "st-1")
        #expect(query["code_challenge"] == attempt.pkce.challenge)
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["access_type"] == "offline")
        #expect(query["login_hint"] == "ann@example.org")
        #expect(!url.contains("s3cret"), "the secret goes to the token endpoint only")
    }

    @Test("the pasted answer: the whole address or the code alone; another state, an error, nothing: refused")
    func pasted() throws {
        let attempt = AuthorizationAttempt(issuer: Self.issuer, state: "st-1")
        #expect(
            try attempt.code(fromPasted: "  http://127.0.0.1:1/contactbox?state=st-1&code=4%2F0Ab-x_Y&scope=a+b\n")
                == "4/0Ab-x_Y")
        #expect(try attempt.code(fromPasted: "4/0Ab-x_Y") == "4/0Ab-x_Y")
        for (pasted, kind) in [
            ("http://127.0.0.1:1/contactbox?state=other&code=4%2F0A", "another sign-in"),
            ("http://127.0.0.1:1/contactbox?error=access_denied&state=st-1", "choose Allow"),
            ("http://127.0.0.1:1/contactbox?state=st-1", "holds no code"),
            ("http://127.0.0.1:1/contactbox?state=st-1&state=st-1&code=x", "cannot be read"),
            ("", "paste the address"),
            ("<script>alert(1)</script>", "neither the address nor the code"),
        ] {
            #expect(throws: OAuthError.self) { try attempt.code(fromPasted: pasted) }
            do {
                _ = try attempt.code(fromPasted: pasted)
            } catch {
                #expect(error.kind == .pasted)
                #expect(error.message.contains(kind), "\(pasted): \(error)")
            }
        }
    }

    @Test("a token answer's strings and numbers; escapes; nested members skipped; anything else refused")
    func answer() throws {
        let text =
            #"{"access_token":"ya29.a\u00e9\/b","expires_in":3599,"refresh_token":"1//0g","scope":"x","#
            + #""token_type":"Bearer","extra":{"a":[1,true,null,{"b":"c"}]},"id_token":null}"#
        let answer = try #require(TokenAnswer(Array(text.utf8)))
        #expect(answer.strings["access_token"] == "ya29.aé/b")
        #expect(answer.numbers["expires_in"] == 3599)
        #expect(answer.strings["refresh_token"] == "1//0g")
        #expect(answer.strings["extra"] == nil)
        #expect(TokenAnswer(Array(#"{"a":"\ud83d\ude00"}"#.utf8))?.strings["a"] == "😀")
        for bad in [
            "", "[]", #"{"a":1"#, #"{"a":"b"} x"#, #"{"a":"\q"}"#, "{\"a\":\"\u{01}\"}",
            String(repeating: "[", count: 20),
        ] {
            #expect(TokenAnswer(Array(bad.utf8)) == nil, "\(bad)")
        }
        let deep = #"{"a":"# + String(repeating: "[", count: 9) + String(repeating: "]", count: 9) + "}"
        #expect(TokenAnswer(Array(deep.utf8)) == nil)
    }

    @Test("the endpoint's errors in words: invalid_grant is signing in again, invalid_client the client")
    func errors() {
        #expect(TokenEndpoint.failure(status: 400, error: "invalid_grant").kind == .signInAgain)
        #expect(TokenEndpoint.failure(status: 401, error: "invalid_client").kind == .client)
        #expect(TokenEndpoint.failure(status: 400, error: "invalid_scope").kind == .issuer)
        #expect(TokenEndpoint.failure(status: 503, error: nil).message.contains("busy"))
    }
}
