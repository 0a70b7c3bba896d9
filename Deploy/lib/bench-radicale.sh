# shellcheck shell=bash
# Sourced by the benchmarks: a Radicale server on 127.0.0.1 with a seeded address book.
#   radicale_configure WORK   writes the users, the password file and radicale.conf into WORK; sets port, book,
#                             and ca_line (the contactbox remote's ca_file line; empty over HTTP)
#   radicale_start N [VCF...] (re)starts it with N cards written as files (PUTs are slow), and the cards of the .vcf
#                             files given, a file each (seed_radicale.py split); sets radicale_pid
# Deploy/lib/bench-work.sh stops it (kill "$radicale_pid") on exit. BENCH_TLS=1: over HTTPS, with a test CA
# (Deploy/lib/test-ca.sh) that contactbox (ca_file), vdirsyncer and the seeding script trust.

# shellcheck source=Deploy/lib/test-ca.sh
source Deploy/lib/test-ca.sh

radicale_configure() {
    radicale_work=$1
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    radicale_pid=
    local scheme=http tls_conf=""
    ca_line="" curl_tls=()
    if [[ ${BENCH_TLS:-0} == 1 ]]; then
        make_test_ca "$radicale_work/tls"
        scheme=https
        tls_conf=$'ssl = True\n'"certificate = $radicale_work/tls/server.pem"$'\n'"key = $radicale_work/tls/server.key"
        # shellcheck disable=SC2034 # ca_line: used by the scripts that source this file
        ca_line="ca_file = \"$radicale_work/tls/ca.pem\""
        curl_tls=(--cacert "$radicale_work/tls/ca.pem")
        # The seeding script (urllib) and vdirsyncer (requests) trust the test CA through these.
        export SSL_CERT_FILE="$radicale_work/tls/ca.pem" REQUESTS_CA_BUNDLE="$radicale_work/tls/ca.pem"
    fi
    book="$scheme://127.0.0.1:$port/alice/contacts/"
    printf 'alice:bench-pw\n' >"$radicale_work/users"
    printf 'bench-pw\n' >"$radicale_work/password" && chmod 600 "$radicale_work/password"
    cat >"$radicale_work/radicale.conf" <<CONF
[server]
hosts = 127.0.0.1:$port
# Radicale neither takes nor lists ("file skipped because size exceeds limit") an item over this (10 MB by
# default): the big-photo book's cards of 13.3 MB (Deploy/bench/photos.sh) need more.
max_resource_size = 100000000
$tls_conf
[auth]
type = htpasswd
htpasswd_filename = $radicale_work/users
htpasswd_encryption = plain
[storage]
filesystem_folder = $radicale_work/storage
[rights]
type = owner_only
[logging]
level = warning
CONF
}

radicale_start() {
    if [[ -n $radicale_pid ]]; then
        kill "$radicale_pid" 2>/dev/null || true
        wait "$radicale_pid" 2>/dev/null || true
    fi
    rm -rf "$radicale_work/storage"
    python3 Deploy/bench/seed_radicale.py collection "$radicale_work/storage/collection-root/alice/contacts" "$1"
    local cards
    for cards in "${@:2}"; do
        python3 Deploy/bench/seed_radicale.py split "$cards" "$radicale_work/storage/collection-root/alice/contacts"
    done
    .venv/bin/python -m radicale --config "$radicale_work/radicale.conf" 2>"$radicale_work/radicale.log" &
    radicale_pid=$!
    for _ in $(seq 100); do
        if curl -s "${curl_tls[@]}" -o /dev/null "${book%%/alice/*}/"; then
            # Radicale reads and caches the collection on its first request: every client gets a warm server.
            curl -s "${curl_tls[@]}" -o /dev/null -u alice:bench-pw -X PROPFIND -H 'Depth: 1' "$book"
            return
        fi
        sleep 0.1
    done
    echo "Radicale did not start:" >&2 && cat "$radicale_work/radicale.log" >&2 && exit 1
}
