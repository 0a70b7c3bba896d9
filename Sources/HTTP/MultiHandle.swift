import CCurl

/// A libcurl multi handle: it runs the transfers and keeps the connection cache, so connections are
/// reused from one call to the next; and a share handle with the TLS session cache of all its easy handles.
/// Freed when this object goes (after the easy handles: they hold the share handle).
final class MultiHandle {
    let handle: UnsafeMutableRawPointer
    /// Set as CURLOPT_SHARE on every easy handle that runs here.
    let share: UnsafeMutableRawPointer

    init(maxConnections: Int) throws(HTTPError) {
        HTTPClient.initializeLibcurl
        guard let handle = curl_multi_init() else {
            throw HTTPError(.other, "libcurl could not create a multi handle")
        }
        self.handle = handle
        guard let share = curl_share_init() else {
            curl_multi_cleanup(handle)
            throw HTTPError(.other, "libcurl could not create a share handle")
        }
        self.share = share
        guard ccurl_share_ssl_sessions(share) == CURLSHE_OK else {
            throw HTTPError(.other, "libcurl could not share TLS sessions")
        }
        try check(ccurl_multi_setopt_long(handle, CURLMOPT_PIPELINING, ccurl_pipe_multiplex))
        // At most this many connections open, and as many kept alive when idle.
        try check(ccurl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, maxConnections))
        try check(ccurl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, maxConnections))
    }

    deinit {
        curl_multi_cleanup(handle)
        curl_share_cleanup(share)
    }

    func add(_ easy: EasyHandle) throws(HTTPError) {
        try check(curl_multi_add_handle(handle, easy.handle))
    }

    func remove(_ easy: EasyHandle) {
        // Fails only for a handle that is not in this multi handle, which is then just as removed.
        _ = curl_multi_remove_handle(handle, easy.handle)
    }

    /// Moves every transfer along as far as it can go without waiting; returns how many still run.
    func perform() throws(HTTPError) -> Int {
        var running: Int32 = 0
        try check(curl_multi_perform(handle, &running))
        return Int(running)
    }

    /// Waits for activity on any transfer's sockets, or curl's next timeout, at most `milliseconds`.
    func poll(milliseconds: Int32) throws(HTTPError) {
        try check(curl_multi_poll(handle, nil, 0, milliseconds, nil))
    }

    /// The next finished transfer: its easy handle and result.
    func nextDone() -> (easy: UnsafeMutableRawPointer, code: CURLcode)? {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(handle, &remaining) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                return (easy, message.pointee.data.result)
            }
        }
        return nil
    }

    private func check(_ code: CURLMcode) throws(HTTPError) {
        guard code == CURLM_OK else {
            throw HTTPError(.other, "libcurl multi interface failed: " + String(cString: curl_multi_strerror(code)))
        }
    }
}

@available(*, unavailable)
extension MultiHandle: Sendable {}
