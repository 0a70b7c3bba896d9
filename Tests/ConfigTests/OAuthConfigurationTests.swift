import Testing

@testable import Config

/// `auth = "oauth"`: the issuer from a preset or given, the client, the refresh token's file; written back by the
/// settings file as it was read.
@Suite("OAuth remotes in the configuration")
struct OAuthConfigurationTests {
    static func text(_ lines: String) -> String {
        """
        store = "/var/lib/contactbox/contacts.sqlite"
        [[remote]]
        name = "google"
        kind = "carddav"
        url = "https://www.googleapis.com/carddav/v1/principals/ann@gmail.com/lists/default/"
        username = "ann@gmail.com"
        password_file = "/var/lib/contactbox/secrets/google.password"
        \(lines)
        """
    }

    func problems(_ lines: String) -> [String] {
        Configuration.read(bytes: Array(Self.text(lines).utf8), path: "c.toml", role: .administrator).errors.map {
            $0.description
        }
    }

    @Test("Google's preset fills in its endpoints and scope; the client secret is a file")
    func preset() throws {
        let configuration = try Configuration.parse(
            text: Self.text(
                """
                auth = "oauth"
                oauth_provider = "google"
                oauth_client_id = "1234-abc.apps.googleusercontent.com"
                oauth_client_secret_file = "/var/lib/contactbox/secrets/google.client-secret"
                """), path: "c.toml")
        guard case .carddav(let card) = configuration.remotes[0].kind else {
            Issue.record("not CardDAV")
            return
        }
        #expect(card.authScheme == .oauth)
        #expect(
            card.oauth
                == OAuthSettings(
                    provider: "google", clientID: "1234-abc.apps.googleusercontent.com",
                    clientSecret: .file("/var/lib/contactbox/secrets/google.client-secret"),
                    authorizationURL: "https://accounts.google.com/o/oauth2/v2/auth",
                    tokenURL: "https://oauth2.googleapis.com/token", scope: "https://www.googleapis.com/auth/carddav"))
    }

    @Test(
        "another issuer by its endpoints; refused: no client, no endpoints, an unknown preset, plain http, oauth keys without oauth"
    )
    func refused() throws {
        let given = try Configuration.parse(
            text: Self.text(
                """
                auth = "oauth"
                oauth_client_id = "box"
                oauth_authorization_url = "https://id.example/authorize"
                oauth_token_url = "https://id.example/token"
                oauth_scope = "carddav"
                """), path: "c.toml")
        guard case .carddav(let card) = given.remotes[0].kind else { return }
        #expect(card.oauth?.tokenURL == "https://id.example/token")
        #expect(card.oauth?.clientSecret == nil)

        #expect(
            problems("auth = \"oauth\"\noauth_provider = \"google\"").contains {
                $0.contains("oauth_client_id is missing")
            })
        #expect(
            problems("auth = \"oauth\"\noauth_client_id = \"x\"").contains { $0.contains("oauth_token_url is missing") }
        )
        #expect(
            problems("auth = \"oauth\"\noauth_provider = \"yahoo\"\noauth_client_id = \"x\"").contains {
                $0.contains("oauth_provider must be one of google")
            })
        #expect(
            problems(
                "auth = \"oauth\"\noauth_provider = \"google\"\noauth_client_id = \"x\"\n"
                    + "oauth_token_url = \"http://id.example/token\""
            ).contains { $0.contains("oauth_token_url must use https://") })
        #expect(
            problems("oauth_client_id = \"x\"").contains { $0.contains("oauth_client_id is only for auth = \"oauth\"") }
        )
    }

    @Test("the settings file writes an OAuth remote as the reader takes it back: the preset by its name")
    func settingsFile() throws {
        var card = RemoteSettings.CardDAVSettings(
            url: "https://www.googleapis.com/carddav/v1/principals/ann@gmail.com/lists/default/",
            username: "ann@gmail.com", password: .file("/var/lib/contactbox/secrets/google.password"),
            authScheme: .oauth, caFile: nil, caPath: nil, concurrency: 4)
        card.oauth = OAuthSettings(
            provider: "google", clientID: "1234",
            clientSecret: .file("/var/lib/contactbox/secrets/google.client-secret"),
            authorizationURL: "https://accounts.google.com/o/oauth2/v2/auth",
            tokenURL: "https://oauth2.googleapis.com/token", scope: "https://www.googleapis.com/auth/carddav")
        let settings = HouseholdConfiguration(remotes: [RemoteSettings(name: "google", kind: .carddav(card))])
        let text = settings.settingsText()
        #expect(text.contains("oauth_provider = \"google\""))
        #expect(!text.contains("oauth_token_url"), "the preset's endpoints are not written out")
        let read = HouseholdConfiguration.validate(
            text: text, path: "/var/lib/contactbox/settings.toml", secretsDirectory: "/var/lib/contactbox/secrets")
        #expect(read.errors.isEmpty, "\(read.errors)")
        #expect(read.household == settings)
        let elsewhere = HouseholdConfiguration.validate(
            text: text.replacing("/var/lib/contactbox/secrets/google.client-secret", with: "/etc/shadow"),
            path: "/var/lib/contactbox/settings.toml", secretsDirectory: "/var/lib/contactbox/secrets")
        #expect(
            elsewhere.errors.map(\.description).contains { $0.contains("oauth_client_secret_file must be a file in") })
    }
}
