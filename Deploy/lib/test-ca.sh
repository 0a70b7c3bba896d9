# shellcheck shell=bash
# Sourced by scripts that need HTTPS on 127.0.0.1 (the benchmarks over HTTPS): a throw-away certificate authority
# and a server certificate for localhost and 127.0.0.1 signed by it, with the openssl command (EC P-256 keys:
# milliseconds). The same certificates as Tests/TestSupport/TestCertificates.swift makes for the tests.
#   make_test_ca DIR    writes DIR/ca.pem (what ca_file names), DIR/server.pem and DIR/server.key (Radicale's
#                       [server] certificate and key), DIR/hashed/ (the CA under its hash: what ca_path names)
# Radicale then serves HTTPS with, in [server]:
#   ssl = True
#   certificate = DIR/server.pem
#   key = DIR/server.key
#   type = hypercorn        (optional: HTTP/2 and kept-alive connections; hypercorn is in .venv, see venv.sh)
# curl and vdirsyncer trust it with --cacert DIR/ca.pem and verify = "DIR/ca.pem"; contactbox with ca_file.

make_test_ca() {
    local dir=$1
    mkdir -p "$dir/hashed"
    local key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${key[@]}" -days 30 -subj "/O=ContactBox tests/CN=ContactBox Test CA" \
        -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
    openssl req -new "${key[@]}" -subj "/CN=localhost" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
    printf '%s\n' "subjectAltName = DNS:localhost, IP:127.0.0.1" "basicConstraints = critical, CA:FALSE" \
        "keyUsage = critical, digitalSignature" "extendedKeyUsage = serverAuth" >"$dir/server.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 30 \
        -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
    cp "$dir/ca.pem" "$dir/hashed/contactbox-test-ca.pem"
    openssl rehash "$dir/hashed"
}
