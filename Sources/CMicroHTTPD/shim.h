// libmicrohttpd for the StatusServer module. MHD_start_daemon is variadic (options as a va_list of pairs), which
// Swift cannot call: the helpers below take the options the status server uses as plain arguments.
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon on `listen_fd`, a socket the caller has bound and put in listening state, so that a failure to
/// bind comes back as an errno the caller can explain (MHD_start_daemon only answers NULL).
/// > MHD_OPTION_LISTEN_SOCKET: Pass a listen socket for MHD to use (systemd-style). If this option is used, MHD
/// > will not open its own listen socket(s).
/// A limit of 0 for `per_ip_limit` means none, as in MHD. `notify_connection` and `notify_completed` share
/// `handler_context`. With `tls_key` and `tls_cert` (PEM text, NUL-terminated, both or neither) it speaks HTTPS
/// (GnuTLS, which MHD links):
/// > MHD_OPTION_HTTPS_MEM_KEY: Memory pointer for the private key (key.pem) to be used by the HTTPS daemon.
/// > MHD_OPTION_HTTPS_MEM_CERT: Memory pointer for the certificate (cert.pem) to be used by the HTTPS daemon.
static inline struct MHD_Daemon *cmhd_start_daemon(unsigned int flags, MHD_socket listen_fd,
                                                   MHD_AccessHandlerCallback handler, void *handler_context,
                                                   MHD_NotifyConnectionCallback notify_connection,
                                                   MHD_RequestCompletedCallback notify_completed,
                                                   unsigned int connection_limit, unsigned int per_ip_limit,
                                                   unsigned int timeout_seconds, size_t memory_limit,
                                                   const char *tls_key, const char *tls_cert) {
    if (tls_key != NULL && tls_cert != NULL) {
        return MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handler, handler_context,
                                MHD_OPTION_LISTEN_SOCKET, listen_fd,
                                MHD_OPTION_NOTIFY_CONNECTION, notify_connection, handler_context,
                                MHD_OPTION_NOTIFY_COMPLETED, notify_completed, handler_context,
                                MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                                MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                                MHD_OPTION_HTTPS_MEM_KEY, tls_key,
                                MHD_OPTION_HTTPS_MEM_CERT, tls_cert,
                                MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_context,
                            MHD_OPTION_LISTEN_SOCKET, listen_fd,
                            MHD_OPTION_NOTIFY_CONNECTION, notify_connection, handler_context,
                            MHD_OPTION_NOTIFY_COMPLETED, notify_completed, handler_context,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_END);
}

/// The client's address (IPv4 or IPv6), or NULL. MHD_get_connection_info is variadic too:
/// > MHD_CONNECTION_INFO_CLIENT_ADDRESS: Obtain IP address of the client. Takes no extra arguments.
/// > Returns essentially a `struct sockaddr **` (since the API returns a `union MHD_ConnectionInfo *` and that
/// > union contains a `struct sockaddr *`).
static inline const struct sockaddr *cmhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// The connection's socket, or -1:
/// > MHD_CONNECTION_INFO_CONNECTION_FD: Returns the file descriptor for the connection socket. No extra arguments
/// > should be passed.
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// Whether a connection notification is its opening (MHD_CONNECTION_NOTIFY_STARTED) rather than its closing.
static inline int cmhd_is_connection_start(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}
