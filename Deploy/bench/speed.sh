#!/usr/bin/env bash
# Sync speed benchmark (the goals of issue 11): a release `contactbox sync` against Radicale and Xandikos on
# 127.0.0.1, beside vdirsyncer and beside each server's floor, measured in the same run. Per server, one table:
#   - download of N contacts into an empty store (fresh server, N in BENCH_SIZES): our wall time, vdirsyncer's and
#     the ratio; the server's floor (Deploy/bench/floor.py: the listing and the multigets of 100, sent one after
#     the other with no client work; the cheapest of a token-less sync-collection, a PROPFIND of the sync-token
#     then of getetag, each followed by multigets, and the sync-token then one query of every card, all printed)
#     and our ratio to it; the download's time beyond the floor beside our CPU time (user + system, from wait4):
#     where a server builds its whole answer before the first byte (Radicale) nothing overlaps the client's work on
#     the cards, and the two are about equal; our CPU per contact;
#   - the same download with our process held to a quarter of one core (Deploy/lib/cpucap.sh; a Pi Zero 2 W's
#     core is several times slower than this machine's), and vdirsyncer held the same way;
#   - the no-op sync's requests, and the sync after 1% changed on each side against its floor (the delta, its
#     multiget and the PUTs);
#   - footprint (Deploy/lib/footprint.py) of the download, the no-op and the 1% sync;
# and a table of the upload of BENCH_UPLOAD_SIZES generated contacts into an empty book against the PUT floor and
# vdirsyncer. Every server is started afresh, seeded (files, not PUTs) and warmed by one listing before each run,
# and held to one core while every client runs on another (taskset, where there are two).
# Goals (exit 1 if one fails), printed with the figures: at N >= 10,000, download <= 0.7x vdirsyncer and
# <= 1.15x the floor, CPU <= 0.1 ms per contact, 1% each side <= 1.15x its floor; a no-op is one request at every
# N; upload <= 1.1x the PUT floor and faster than vdirsyncer; footprint <= 8 MB and within 1 MB of the first N.
#   BENCH_SIZES="1000 10000" BENCH_UPLOAD_SIZES="1000" Deploy/bench/speed.sh
#   BENCH_SERVERS (radicale xandikos), BENCH_SIZES (1000 10000 50000), BENCH_UPLOAD_SIZES (1000 10000; "" for
#   none), BENCH_CPU_PERCENT (25), BENCH_BIN (a contactbox binary to measure instead of building this tree's)
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}" python3-venv
# shellcheck source=Deploy/lib/venv.sh
source Deploy/lib/venv.sh
ensure_venv

read -ra sizes <<<"${BENCH_SIZES-1000 10000 50000}"
read -ra upload_sizes <<<"${BENCH_UPLOAD_SIZES-1000 10000}"
read -ra servers <<<"${BENCH_SERVERS:-radicale xandikos}"
cpu_percent=${BENCH_CPU_PERCENT:-25}
if [[ -n ${BENCH_BIN:-} ]]; then
    contactbox=$BENCH_BIN
else
    # shellcheck source=Deploy/lib/release-build.sh
    source Deploy/lib/release-build.sh
    # shellcheck disable=SC2119 # no extra swift build flags
    release_build
    contactbox=$CONTACTBOX_BIN
fi

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
# shellcheck source=Deploy/lib/bench-xandikos.sh
source Deploy/lib/bench-xandikos.sh
# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh
# shellcheck source=Deploy/lib/bench-vdirsyncer.sh
source Deploy/lib/bench-vdirsyncer.sh
# shellcheck source=Deploy/lib/cpucap.sh
source Deploy/lib/cpucap.sh
radicale_configure "$work"
xandikos_configure "$work"
cpucap_detect
[[ -n $cpucap_kind ]] && bench_on_exit+=(cpucap_remove)

version() { .venv/bin/python -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$1"; }

# use_server NAME: the server the next runs go to; sets server_label, server_book, server_line (the remote's extra
# config line) and stops the other server.
use_server() {
    case $1 in
        radicale)
            xandikos_stop
            server_label="Radicale $(version radicale)" server_book=$book server_line=$ca_line
            ;;
        xandikos)
            if [[ -n $radicale_pid ]]; then
                kill "$radicale_pid" 2>/dev/null || true
                wait "$radicale_pid" 2>/dev/null || true
                radicale_pid=
            fi
            # Xandikos has no login over plain HTTP; every client sends one anyway, which it ignores.
            server_label="Xandikos $(version xandikos)" server_book=$xandikos_book server_line=""
            ;;
        *) echo "speed.sh: unknown server $1 (radicale, xandikos)" >&2 && exit 64 ;;
    esac
    server=$1
}
# The server on one core and every client (ours, vdirsyncer, the floor's script) on another, as on the box, where
# the server is another machine. Unpinned in this VM, the server's threads (Xandikos hands each card of a multiget
# between two) took 15-40% longer from run to run, as a client's work on the other core moved them about.
client_pin=()
(($(nproc) >= 2)) && client_pin=(taskset -c 1)
server_start() {
    if [[ $server == radicale ]]; then radicale_start "$1"; else xandikos_start "$1"; fi
    if ((${#client_pin[@]})); then taskset -a -pc 0 "${radicale_pid:-$xandikos_pid}" >/dev/null; fi
}

write_config() { # write_config STORE
    cat >"$work/contactbox.toml" <<CONF
store = "$1"
[[remote]]
name = "bench"
kind = "carddav"
url = "$server_book"
username = "alice"
password_file = "$work/password"
$server_line
CONF
}

# measure ARGS...: `contactbox ARGS` sampled, with request logging, run under "${prefix[@]}" (the client's core,
# and the CPU cap or nothing); sets wall_s, cpu_s, fp_kb ..., requests (by method) and total_requests.
prefix=("${client_pin[@]}")
measure() {
    if ! CONTACTBOX_LOG_LEVEL=debug footprint_run "$work/fp" "${prefix[@]}" "$contactbox" "$@" \
        >"$work/out" 2>"$work/err"; then
        echo "failed: contactbox $*" >&2 && tail -20 "$work/err" "$work/out" >&2 && exit 1
    fi
    requests=$(grep -o 'http.method=[A-Z]*' "$work/err" | sed 's/http.method=//' | sort | uniq -c |
        awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }')
    total_requests=$(grep -c 'http.method=' "$work/err" || true)
}

# floor JOB ARGS...: Deploy/bench/floor.py against the server; its output (floor_s, listing_s, token_s) is eval'd.
floor_s=0 listing_s=0 token_s=0
floor() { "${client_pin[@]}" python3 Deploy/bench/floor.py "$1" "$server_book" alice "$work/password" "${@:2}"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
cell() { printf '| %s ' "$@"; }
# table_head COLUMN...: a Markdown table's header row and its separator, one cell a column.
table_head() { cell "$@" && echo "|" && printf -- '|---%.0s' "$@" && echo "|"; }

failures=()
declare -A base_fp
memory_goal() { # memory_goal LABEL N WHAT FOOTPRINT_KB
    (($4 <= 8 * 1024)) || failures+=("$1 N=$2 $3: footprint $(mb "$4") MB > 8 MB")
    [[ -z ${base_fp[$1/$3]:-} ]] && base_fp[$1/$3]=$4
    (($4 - base_fp[$1/$3] <= 1024)) ||
        failures+=("$1 N=$2 $3: footprint $(mb "$4") MB is over 1 MB above the first size's")
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
[[ -n $cpucap_kind ]] || echo "quarter-core runs skipped: $cpucap_why"
for s in "${servers[@]}"; do
    use_server "$s"
    table=()
    for n in "${sizes[@]}"; do
        # ContactBox: download, no-op, then 1% changed on each side.
        server_start "$n"
        rm -f "$work"/store.sqlite*
        write_config "$work/store.sqlite"
        measure sync --config "$work/contactbox.toml"
        dl_s=$wall_s dl_cpu=$cpu_s dl_fp=$fp_kb dl_requests=$requests
        memory_goal "$s" "$n" download "$fp_kb"
        measure sync --config "$work/contactbox.toml"
        noop_requests=$total_requests
        memory_goal "$s" "$n" no-op "$fp_kb"
        ((total_requests == 1)) || failures+=("$s N=$n: the no-op sync made $total_requests requests ($requests), not 1")
        changes=$((n / 100))
        python3 Deploy/bench/seed_radicale.py edit-remote "$server_book" alice "$work/password" "$changes" "$n"
        python3 Deploy/bench/seed_radicale.py edit-local "$work/local-edits.vcf" "$changes" "$n"
        "$contactbox" import --update --db "$work/store.sqlite" "$work/local-edits.vcf" 2>/dev/null
        measure sync --config "$work/contactbox.toml"
        ch_s=$wall_s ch_fp=$fp_kb
        memory_goal "$s" "$n" "1% each side" "$fp_kb"

        # vdirsyncer, then the floors, each on a fresh server.
        server_start "$n"
        rm -rf "$work/vds"
        vdirsyncer_run "$server_book" "$work/vds" "${prefix[@]}"
        vds_s=$wall_s
        server_start "$n"
        eval "$(floor download-sync)"
        sync_floor=$floor_s sync_listing=$listing_s
        server_start "$n"
        eval "$(floor download-propfind)"
        propfind_floor=$floor_s propfind_listing=$(awk -v a="$token_s" -v b="$listing_s" 'BEGIN { print a + b }')
        # Read-only, so on the same server: the query of every card, listing and cards in one request.
        eval "$(floor download-query)"
        query_floor=$floor_s
        dl_floor=$(printf '%s\n' "$sync_floor" "$propfind_floor" "$query_floor" | sort -g | head -1)
        floor_how="sync-collection ${sync_listing} s + multigets = ${sync_floor} s; token and PROPFIND"
        floor_how+=" ${propfind_listing} s + multigets = ${propfind_floor} s; token and query = ${query_floor} s"
        server_start "$n"
        token=$(floor token)
        python3 Deploy/bench/seed_radicale.py edit-remote "$server_book" alice "$work/password" "$changes" "$n"
        eval "$(floor changes "$token" "$work/local-edits.vcf")"
        ch_floor=$floor_s

        # A quarter of one core, for us and for vdirsyncer.
        q_s=- qv_s=- q_ratio=-
        if [[ -n $cpucap_kind ]]; then
            cpucap_make "q$n" "$cpu_percent"
            server_start "$n"
            rm -f "$work"/store.sqlite*
            write_config "$work/store.sqlite"
            prefix=("${cpucap_prefix[@]}" "${client_pin[@]}")
            measure sync --config "$work/contactbox.toml"
            q_s=$wall_s
            server_start "$n"
            rm -rf "$work/vds"
            vdirsyncer_run "$server_book" "$work/vds" "${prefix[@]}"
            prefix=("${client_pin[@]}")
            qv_s=$wall_s q_ratio=$(ratio "$q_s" "$qv_s")
            cpucap_remove
        fi

        per_contact=$(awk -v c="$dl_cpu" -v n="$n" 'BEGIN { printf "%.3f", (n > 0 ? c * 1000 / n : 0) }')
        vds_ratio=$(ratio "$dl_s" "$vds_s") floor_ratio=$(ratio "$dl_s" "$dl_floor")
        beyond_s=$(awk -v a="$dl_s" -v b="$dl_floor" 'BEGIN { printf "%.2f", a - b }')
        ch_ratio=$(ratio "$ch_s" "$ch_floor")
        table+=("$(cell "$n" "$dl_s" "$vds_s" "$vds_ratio" "$dl_floor" "$floor_ratio" "$floor_how" "$beyond_s" \
            "$dl_cpu" "$per_contact" "$q_s" "$qv_s" "$q_ratio" "$noop_requests" "$ch_s" "$ch_floor" "$ch_ratio" \
            "$(mb "$dl_fp") / $(mb "$ch_fp")")|")
        echo "$s N=$n: download ${dl_s} s ($dl_requests), CPU ${dl_cpu} s; vdirsyncer ${vds_s} s;" \
            "floor ${dl_floor} s: $floor_how; beyond the floor ${beyond_s} s;" \
            "quarter core ${q_s} s, vdirsyncer ${qv_s} s;" \
            "1% each side ${ch_s} s, floor ${ch_floor} s" >&2
        if ((n >= 10000)); then
            le "$vds_ratio" 0.7 || failures+=("$s N=$n: download ${vds_ratio}x vdirsyncer's time (goal <= 0.7x)")
            le "$floor_ratio" 1.15 || failures+=("$s N=$n: download ${floor_ratio}x the floor (goal <= 1.15x)")
            le "$per_contact" 0.1 || failures+=("$s N=$n: ${per_contact} ms CPU per contact (goal <= 0.1 ms)")
            le "$ch_ratio" 1.15 || failures+=("$s N=$n: 1% each side ${ch_ratio}x its floor (goal <= 1.15x)")
        fi
    done

    uploads=()
    for n in "${upload_sizes[@]}"; do
        python3 Deploy/bench/gen_contacts.py "$n" "$work/upload.vcf"
        rm -f "$work"/upload.sqlite*
        "$contactbox" import --db "$work/upload.sqlite" "$work/upload.vcf" 2>/dev/null
        write_config "$work/upload.sqlite"
        server_start 0
        measure sync --config "$work/contactbox.toml"
        up_s=$wall_s up_fp=$fp_kb up_requests=$requests
        memory_goal "$s" "$n" upload "$fp_kb"
        server_start 0
        rm -rf "$work/vds-up"
        python3 Deploy/bench/seed_radicale.py split "$work/upload.vcf" "$work/vds-up"
        vdirsyncer_run "$server_book" "$work/vds-up" "${prefix[@]}"
        upv_s=$wall_s
        server_start 0
        eval "$(floor upload "$work/upload.vcf")"
        up_floor=$floor_s
        up_floor_ratio=$(ratio "$up_s" "$up_floor") up_vds_ratio=$(ratio "$up_s" "$upv_s")
        uploads+=("$(cell "$n" "$up_s" "$up_floor" "$up_floor_ratio" "$upv_s" "$up_vds_ratio" "$(mb "$up_fp")" \
            "$up_requests")|")
        le "$up_floor_ratio" 1.1 || failures+=("$s upload $n: ${up_floor_ratio}x the PUT floor (goal <= 1.1x)")
        le "$up_vds_ratio" 1 || failures+=("$s upload $n: ${up_vds_ratio}x vdirsyncer's time (goal: ahead of it)")
    done

    if ((${#table[@]})); then
        echo
        echo "$server_label: download (seconds; CPU: user + system of our process; ¼ core: ${cpu_percent}% of one core)"
        echo
        table_head N ContactBox vdirsyncer "× vdirsyncer" floor "× floor" "the floors, by way" "beyond the floor" \
            "CPU s" "CPU ms/contact" "¼ core: ContactBox" "¼ core: vdirsyncer" × "no-op requests" "1% each side" \
            "its floor" "× floor" "footprint MB (download / 1%)"
        printf '%s\n' "${table[@]}"
    fi
    if ((${#uploads[@]})); then
        echo
        echo "$server_label: upload into an empty book (seconds)"
        echo
        table_head N ContactBox "PUT floor" "× floor" vdirsyncer "× vdirsyncer" "footprint MB" requests
        printf '%s\n' "${uploads[@]}"
    fi
    echo
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "goals: at N >= 10,000 download <= 0.7x vdirsyncer and <= 1.15x the floor, CPU <= 0.1 ms per contact, 1% each"
echo "side <= 1.15x its floor; a no-op is 1 request; upload <= 1.1x the PUT floor and ahead of vdirsyncer;"
echo "footprint <= 8 MB and within 1 MB of the first size"
if ((${#failures[@]})); then
    printf 'goal FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "goals met"
