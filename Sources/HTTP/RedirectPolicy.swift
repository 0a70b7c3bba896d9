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

    /// Whether credentials meant for `origin` may be sent to `target`: the same scheme, host and port,
    /// or a host in the same parent domain (the last two labels equal: iCloud's partition redirect from
    /// contacts.icloud.com to p42-contacts.icloud.com). Never to plain http when the origin was https.
    static func mayForwardCredentials(from origin: URLParts, to target: URLParts) -> Bool {
        if origin.scheme == "https" && target.scheme != "https" {
            return false
        }
        if origin.scheme == target.scheme && origin.host == target.host && origin.port == target.port {
            return true
        }
        guard target.scheme == origin.scheme || target.scheme == "https" else { return false }
        guard let originDomain = parentDomain(of: origin.host), let targetDomain = parentDomain(of: target.host)
        else { return false }
        return originDomain == targetDomain
    }

    /// The last two labels of a DNS name; nil for IP literals and single-label names, which have no parent
    /// domain to share.
    static func parentDomain(of host: String) -> String? {
        if host.hasPrefix("[") || host.contains(":") {
            return nil
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else { return nil }
        if labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) {
            return nil
        }
        return labels.suffix(2).joined(separator: ".")
    }
}
