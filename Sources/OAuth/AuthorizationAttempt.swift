import SystemSupport

/// One sign-in (RFC 6749 4.1, with PKCE): the address the person opens to consent, and what the box keeps until
/// they paste the answer back: the `state` that ties the answer to this attempt (and so to the browser that
/// started it), and the PKCE verifier that makes the code worthless to anyone else.
public struct AuthorizationAttempt: Sendable, Equatable {
    public let issuer: OAuthIssuer
    public let state: String
    public let pkce: PKCE
    public let redirectURI: String
    /// The account to preselect (Google's `login_hint`), if the person gave it.
    public let loginHint: String?

    public init(
        issuer: OAuthIssuer, loginHint: String? = nil, redirectURI: String = OAuthIssuer.loopbackRedirect,
        state: String = PKCE.randomText(bytes: 16), pkce: PKCE = .random()
    ) {
        self.issuer = issuer
        self.loginHint = loginHint
        self.redirectURI = redirectURI
        self.state = state
        self.pkce = pkce
    }

    /// The authorization request. `access_type=offline` and `prompt=consent` are Google's way to be given a refresh
    /// token every time (other issuers ignore parameters they do not know, RFC 6749 3.1).
    public var url: String {
        var fields = [
            ("response_type", "code"), ("client_id", issuer.clientID), ("redirect_uri", redirectURI),
            ("scope", issuer.scope), ("state", state), ("code_challenge", pkce.challenge),
            ("code_challenge_method", "S256"), ("access_type", "offline"), ("prompt", "consent"),
        ]
        if let loginHint, !loginHint.isEmpty { fields.append(("login_hint", loginHint)) }
        let separator = issuer.authorizationURL.contains("?") ? "&" : "?"
        return issuer.authorizationURL + separator + FormEncoding.encode(fields)
    }

    /// The code in what the person pasted: the whole address their browser showed after consenting (its query
    /// holds `code` and `state`, or `error`), or the code alone. An address whose `state` is not this attempt's is
    /// refused: it answers another sign-in, perhaps one started by someone else.
    public func code(fromPasted pasted: String) throws(OAuthError) -> String {
        let text = pasted.trimmingWhitespace
        guard !text.isEmpty else {
            throw OAuthError(.pasted, "paste the address your browser shows after you allowed access")
        }
        guard text.contains("=") else {
            // The code alone: Google's are long runs of letters, digits and "/-_." (a "4/0A..." code).
            guard text.utf8.count <= 2048,
                text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/-_.~".contains($0)) })
            else { throw OAuthError(.pasted, "that is neither the address nor the code: paste the whole address") }
            return text
        }
        var query = Substring(text)
        if let question = query.firstIndex(of: "?") { query = query[query.index(after: question)...] }
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        guard let fields = FormEncoding.decode(query.utf8) else {
            throw OAuthError(.pasted, "that address cannot be read: paste it whole, as the browser shows it")
        }
        if let error = fields["error"] {
            throw OAuthError(
                .pasted,
                error == "access_denied"
                    ? "access was not allowed: start again and choose Allow"
                    : "the sign-in ended with an error: start again", code: error)
        }
        guard fields["state"] == state else {
            throw OAuthError(.pasted, "that address belongs to another sign-in: start again from this page")
        }
        guard let code = fields["code"], !code.isEmpty else {
            throw OAuthError(.pasted, "that address holds no code: paste the address shown after you allowed access")
        }
        return code
    }
}
