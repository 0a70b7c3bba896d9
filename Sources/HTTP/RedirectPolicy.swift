import CPSL

/// What a followed redirect does to the request: pure decisions, tested without a network.
enum RedirectPolicy {
    /// Statuses followed (RFC 9110 15.4); 300 and 304 are not redirects to follow.
    static func isFollowed(_ status: Int) -> Bool {
        [301, 302, 303, 307, 308].contains(status)
    }

    /// The method of the next hop: 303 See Other turns anything but HEAD into a body-less GET
    /// (RFC 9110 15.4.4); the others repeat the request as it was.
    static func nextMethod(after status: Int, method: String) -> (method: String, keepsBody: Bool) {
        if status == 303 && method != "HEAD" {
            return ("GET", false)
        }
        return (method, true)
    }

}

/// Where credentials and contacts may go: the configured origin (scheme, host, port), or an https host of the
/// same site where a provider hands accounts out to partition hosts (iCloud sends contacts.icloud.com on to
/// p42-contacts.icloud.com). The site is the registrable domain of the public suffix list (libpsl), so
/// `a.github.io` and `b.github.io` are two sites. Never to another port, never from https to http, never to an IP
/// literal other than the origin itself.
public enum OriginPolicy {
    /// Why `target` is not a place for what was meant for `origin`; nil when it is.
    public static func refusal(from origin: String, to target: String) -> String? {
        guard let from = URLParts(origin), let to = URLParts(target) else { return "it is not an absolute URL" }
        return refusal(from: from, to: to)
    }

    static func refusal(from origin: URLParts, to target: URLParts) -> String? {
        if origin.scheme == "https" && target.scheme != "https" { return "it goes from https to plain http" }
        if origin.scheme == target.scheme && origin.host == target.host && origin.port == target.port { return nil }
        if origin.port != target.port || origin.scheme != target.scheme { return "it goes to another port" }
        guard origin.scheme == "https" else { return "it goes to another host over plain http" }
        guard !isIPLiteral(origin.host), !isIPLiteral(target.host) else { return "it goes to another address" }
        guard let site = registrableDomain(origin.host), site == registrableDomain(target.host) else {
            return "it goes to another site"
        }
        return nil
    }

    /// "icloud.com" for "p42-contacts.icloud.com"; nil for a public suffix itself or a single label.
    static func registrableDomain(_ host: String) -> String? {
        guard let psl = psl_builtin() ?? psl_latest(nil), let domain = psl_registrable_domain(psl, host) else {
            return nil
        }
        return String(cString: domain)
    }

    static func isIPLiteral(_ host: String) -> Bool {
        host.hasPrefix("[") || host.contains(":") || host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isNumber) }
    }
}
