import StatusServer

extension Daemon {
    /// The box's name (`[box] name`) where it is used, at the start and after each reload (the page may have
    /// changed it): the status servers answer `Host: <name>.local`, and the name is published over mDNS with the
    /// HTTP page's port, unless the page listens on loopback alone (no neighbour could open it).
    func publishBoxName() {
        let name = configuration.box.name
        for server in servers { server.setBoxName(name) }
        let page = servers.first { !$0.isSecure && !Self.isLoopback($0.host) }
        networkName.publish(name: name, pagePort: page?.port)
    }

    /// A listen address only this machine can reach.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
