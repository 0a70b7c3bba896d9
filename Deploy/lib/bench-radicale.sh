# shellcheck shell=bash
# Sourced by the benchmarks: a Radicale server on 127.0.0.1 with a seeded address book.
#   radicale_configure WORK   writes the users, the password file and radicale.conf into WORK; sets port, book
#   radicale_start N          (re)starts it with N cards written as files (PUTs are slow); sets radicale_pid
# The caller stops it (kill "$radicale_pid") in its cleanup.

radicale_configure() {
    radicale_work=$1
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    book="http://127.0.0.1:$port/alice/contacts/"
    radicale_pid=
    printf 'alice:bench-pw\n' >"$radicale_work/users"
    printf 'bench-pw\n' >"$radicale_work/password" && chmod 600 "$radicale_work/password"
    cat >"$radicale_work/radicale.conf" <<CONF
[server]
hosts = 127.0.0.1:$port
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
    .venv/bin/python -m radicale --config "$radicale_work/radicale.conf" 2>"$radicale_work/radicale.log" &
    radicale_pid=$!
    for _ in $(seq 100); do
        if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
            # Radicale reads and caches the collection on its first request: every client gets a warm server.
            curl -s -o /dev/null -u alice:bench-pw -X PROPFIND -H 'Depth: 1' "$book"
            return
        fi
        sleep 0.1
    done
    echo "Radicale did not start:" >&2 && cat "$radicale_work/radicale.log" >&2 && exit 1
}
