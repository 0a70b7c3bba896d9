# shellcheck shell=bash
# Sourced by the daemon benchmarks (appliance, capped, soak): a release `contactbox run` ($contactbox) with the
# simulated panel and its status page on a free loopback port, in a folder of $work. The caller keeps the PIDs in
# the array `pids` and stops them in its cleanup.
#   daemon_start NAME INTERVAL REMOTES [PREFIX...]   writes $work/NAME/contactbox.toml (store $work/NAME/contacts.sqlite,
#                                  [sync] interval INTERVAL (empty: none, so that the settings file may set it), the
#                                  [[remote]] blocks REMOTES) and starts the daemon,
#                                  behind PREFIX if given (a memory cgroup's memcap_prefix); sets pid and status (the
#                                  page's URL)
#   daemon_runs [OUTCOME]          the sync runs (one per remote and pass) so far, from /metrics; only those that
#                                  ended with OUTCOME (ok, failed, deletions_held, interrupted) if given
#   daemon_wait_runs N SECONDS     until at least N runs are done and the daemon is idle; fails after SECONDS
#   daemon_stop                    SIGTERM and wait; sets daemon_exit (its exit status)
#   carddav_remote / vdir_remote FOLDER     the TOML of the bench Radicale's book / of a folder remote

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

carddav_remote() {
    # shellcheck disable=SC2154 # book and radicale_work: Deploy/lib/bench-radicale.sh
    printf '[[remote]]\nname = "radicale"\nkind = "carddav"\nurl = "%s"\nusername = "alice"\npassword_file = "%s"\n%s\n' \
        "$book" "$radicale_work/password" "${ca_line:-}"
}
vdir_remote() { printf '[[remote]]\nname = "nas"\nkind = "vdir"\nfolder = "%s"\ncreate_folder = true\n' "$1"; }

daemon_start() {
    local name=$1 interval=$2 remotes=$3 port interval_line=''
    [[ -z $interval ]] || interval_line="interval = \"$interval\""
    shift 3
    port=$(free_port)
    status="http://127.0.0.1:$port"
    daemon_dir="$work/$name"
    mkdir -p "$daemon_dir"
    cat >"$daemon_dir/contactbox.toml" <<CONF
store = "$daemon_dir/contacts.sqlite"
[sync]
$interval_line
[panel]
board = "simulated"
[status]
listen = "127.0.0.1:$port"
$remotes
CONF
    "$@" "$contactbox" run --config "$daemon_dir/contactbox.toml" </dev/null >"$daemon_dir/out.log" \
        2>"$daemon_dir/daemon.log" &
    pid=$!
    pids+=("$pid")
}

daemon_runs() {
    curl -s "$status/metrics" | awk -v outcome="${1:-}" '$1 ~ /^contactbox_sync_runs_total/ &&
        (outcome == "" || index($1, "outcome=\"" outcome "\"")) { n += $2 } END { print n + 0 }'
}

daemon_wait_runs() {
    local deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "the daemon ended; its log:" >&2 && tail -20 "$daemon_dir/daemon.log" >&2 && return 1
        fi
        if (($(daemon_runs) >= $1)) && curl -s "$status/api/status" | grep -q '"state":"idle"'; then return 0; fi
        sleep 0.1
    done
    echo "the daemon did not get idle after $1 sync runs; its log:" >&2 && tail -20 "$daemon_dir/daemon.log" >&2
    return 1
}

daemon_stop() {
    kill -TERM "$pid" 2>/dev/null || true
    daemon_exit=0
    wait "$pid" || daemon_exit=$?
}
