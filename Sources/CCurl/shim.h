#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>

// Typed wrappers for libcurl's variadic functions, which Swift cannot call (Docs/contributing.md, rule 1).
// Only the HTTP module imports this; nothing here appears in a public Swift API.

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// libcurl copies strings passed this way (CURLOPT_URL, CURLOPT_USERNAME...), except CURLOPT_POSTFIELDS.
static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_writefunction(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_readfunction(CURL *handle, curl_read_callback value) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, value);
}

static inline CURLcode ccurl_easy_setopt_seekfunction(CURL *handle, curl_seek_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, value);
}

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

// Macros Swift does not import.
static const long ccurl_global_default = CURL_GLOBAL_DEFAULT;

// Before curl_global_init: let OpenSSL (libcurl's TLS) skip loading its error-string tables and its legacy
// cipher name table, which curl never reads: less resident memory (peak RSS, which Deploy/bench/sync.sh prints).
// The OpenSSL configuration (security level, protocols) is still loaded. Must
// run first: OpenSSL initialises each part once per process. Returns 1 on success.
// The digest name table must stay, whatever it costs: certificate verification looks up the digest of
// each signature in it (EVP_get_digestbynid, for the security level's check), and without it every certificate
// signed by an authority fails with "CA signature digest algorithm too weak" (Tests/HTTPTests/TLSTests.swift).
#include <openssl/ssl.h>
static inline int ccurl_lean_openssl_init(void) {
    return OPENSSL_init_ssl(
        OPENSSL_INIT_NO_LOAD_SSL_STRINGS | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS | OPENSSL_INIT_NO_ADD_ALL_CIPHERS,
        NULL);
}
// TLS session reuse. A share handle gives every easy handle of a client one TLS session cache, so that a new
// connection (a server that closes after each response, one more in parallel) resumes a session any of them
// made instead of a full handshake. Single-threaded: no lock callbacks.
static inline CURLSHcode ccurl_share_ssl_sessions(CURLSH *share) {
    return curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
}

// Whether the TLS connection of a transfer resumed an earlier session, noted by CURLOPT_PREREQFUNCTION once the
// connection is ready and before the request goes out (the only time the SSL object is sure to be reachable):
// 1 resumed, 0 a full handshake, -1 not TLS (or not OpenSSL).
typedef struct {
    CURL *handle;
    int resumed;
} ccurl_tls_note;

static inline int ccurl_prereq_note_tls(void *clientp, char *primary_ip, char *local_ip, int primary_port,
                                        int local_port) {
    (void)primary_ip;
    (void)local_ip;
    (void)primary_port;
    (void)local_port;
    ccurl_tls_note *note = (ccurl_tls_note *)clientp;
    struct curl_tlssessioninfo *info = NULL;
    note->resumed = -1;
    if (curl_easy_getinfo(note->handle, CURLINFO_TLS_SSL_PTR, &info) == CURLE_OK && info != NULL
        && info->backend == CURLSSLBACKEND_OPENSSL && info->internals != NULL) {
        note->resumed = SSL_session_reused((SSL *)info->internals);
    }
    return CURL_PREREQFUNC_OK;
}

static inline CURLcode ccurl_easy_note_tls(CURL *handle, ccurl_tls_note *note) {
    note->handle = handle;
    note->resumed = -1;
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, ccurl_prereq_note_tls);
    return code == CURLE_OK ? curl_easy_setopt(handle, CURLOPT_PREREQDATA, note) : code;
}

static const unsigned long ccurl_auth_basic = CURLAUTH_BASIC;
static const unsigned long ccurl_auth_digest = CURLAUTH_DIGEST;
static const unsigned long ccurl_auth_none = CURLAUTH_NONE;
static const unsigned long ccurl_auth_bearer = CURLAUTH_BEARER;
static const long ccurl_http_version_2tls = CURL_HTTP_VERSION_2TLS;
static const size_t ccurl_readfunc_abort = CURL_READFUNC_ABORT;
static const size_t ccurl_writefunc_pause = CURL_WRITEFUNC_PAUSE;
static const int ccurl_seekfunc_ok = CURL_SEEKFUNC_OK;
static const int ccurl_seekfunc_cantseek = CURL_SEEKFUNC_CANTSEEK;
static const long ccurl_pipe_multiplex = CURLPIPE_MULTIPLEX;

// A transfer paused by its write callback goes on; curl delivers the bytes it kept first.
static inline CURLcode ccurl_easy_unpause(CURL *handle) {
    return curl_easy_pause(handle, CURLPAUSE_CONT);
}

#endif
