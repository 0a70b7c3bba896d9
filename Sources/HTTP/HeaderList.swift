import CCurl

/// A `curl_slist` of header lines, freed when this object goes. libcurl reads it during the transfer
/// without copying, so the easy handle that uses it keeps it alive.
final class HeaderList {
    private(set) var head: UnsafeMutablePointer<curl_slist>?

    init(_ lines: [String]) throws(HTTPError) {
        for line in lines {
            // > curl_slist_append returns a null pointer if anything went wrong, otherwise the new list pointer
            guard let newHead = curl_slist_append(head, line) else {
                throw HTTPError(.other, "Out of memory building the request headers")
            }
            head = newHead
        }
    }

    deinit {
        curl_slist_free_all(head)
    }
}

@available(*, unavailable)
extension HeaderList: Sendable {}
