# shellcheck shell=bash
# Sourced by the benchmarks: a Xandikos server on 127.0.0.1 with a seeded address book, in the style of
# Deploy/lib/bench-radicale.sh.
#   xandikos_configure WORK   sets xandikos_port and xandikos_book (no login: Xandikos has none without HTTPS,
#                             see Docs/servers.md; clients send one anyway, which it ignores)
#   xandikos_start N          (re)starts it with N cards. Xandikos keeps each collection in a git repository and
#                             reads its index, so the cards are seeded as Radicale's are, as files (the same cards,
#                             Deploy/bench/seed_radicale.py), committed with git, not sent by PUT (a commit each);
#                             the seeded repository is kept per N in WORK and copied for every start.
# Deploy/lib/bench-work.sh stops it (kill "$xandikos_pid") on exit. Plain HTTP only.

xandikos_configure() {
    xandikos_work=$1
    xandikos_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    xandikos_pid=
    xandikos_book="http://127.0.0.1:$xandikos_port/user/contacts/addressbook/"
}

# xandikos_serve FOLDER: starts Xandikos on FOLDER and waits until it answers.
xandikos_serve() {
    .venv/bin/xandikos serve -d "$1" --defaults -l 127.0.0.1 -p "$xandikos_port" --no-detect-systemd \
        --state-dir "$xandikos_work/xandikos-state" 2>"$xandikos_work/xandikos.log" &
    xandikos_pid=$!
    for _ in $(seq 300); do
        if curl -s -o /dev/null "http://127.0.0.1:$xandikos_port/"; then
            return
        fi
        sleep 0.1
    done
    echo "Xandikos did not start:" >&2 && cat "$xandikos_work/xandikos.log" >&2 && exit 1
}

xandikos_stop() {
    if [[ -n $xandikos_pid ]]; then
        kill "$xandikos_pid" 2>/dev/null || true
        wait "$xandikos_pid" 2>/dev/null || true
        xandikos_pid=
    fi
}

xandikos_start() {
    local n=$1 seeded=$xandikos_work/xandikos-seed-$1
    xandikos_stop
    if [[ ! -d $seeded ]]; then
        # --defaults makes the principal and its address book (a git repository with its type committed).
        xandikos_serve "$seeded"
        curl -s -o /dev/null -X PROPFIND -H 'Depth: 0' "$xandikos_book"
        xandikos_stop
        local repo=$seeded/user/contacts/addressbook
        [[ -d $repo/.git ]] || { echo "Xandikos made no address book at $repo" >&2 && exit 1; }
        python3 Deploy/bench/seed_radicale.py files "$repo" "$n"
        git -C "$repo" add -A
        # No automatic gc: it repacks the objects in the background, while `cp -a` below copies them.
        git -C "$repo" -c user.name=bench -c user.email=bench@localhost -c gc.auto=0 commit -q --allow-empty -m "seed $n"
    fi
    rm -rf "$xandikos_work/xandikos-storage"
    cp -a "$seeded" "$xandikos_work/xandikos-storage"
    xandikos_serve "$xandikos_work/xandikos-storage"
    # As for Radicale: one listing first, so that every client meets a server that has read the collection.
    curl -s -o /dev/null -X PROPFIND -H 'Depth: 1' "$xandikos_book"
}
