#!/usr/bin/env bash
# Contacts benchmark (issue 35): the household's contacts on the status page's JSON API, read by a program with a
# token while a sync runs. A release `contactbox run` (simulated panel) inside a memory cgroup with a hard 20 MB
# limit (Deploy/lib/memcap.sh; uncapped where none can be made, and it says so), syncing one Radicale book on
# 127.0.0.1 of N contacts (BENCH_CONTACTS, default 50,000): invented names, organisations (40%), 1-3 phones,
# 0-3 emails, an address; BENCH_PHOTOS (0.1) of them with a JPEG photo of BENCH_PHOTO_SIZE bytes (20000-50000: a
# phone's small contact photo; 27-67 KB of base64 in the card) (Deploy/bench/gen_contacts.py --seed 35, no copies).
# The daemon's first sync downloads the book into its store; then, with a read-only token (`contactbox token
# create bench`):
#   1. the list from the start to the end, GET /api/contacts?limit=100 then &after=NEXT (its cursors kept for 2);
#   2. list pages under wrk for BENCH_SECONDS (20) s: ?limit=100 with a random `after` of those cursors or none;
#   3. searches under wrk for as long: ?q= a random one of names, a given name, organisations, an email domain,
#      phone digits, and rare terms (one card's email and phone number, a word no card holds): a mix of common
#      and rare, where a rare one reads the whole index;
#      through 2 and 3 a sync runs: a loop PUTs 5 changed cards to Radicale and asks for a pass (POST /api/sync),
#      again as soon as it ends; /api/status sampled every 0.2 s shows how much of each window a sync ran;
#   4. the changes feed from 0 in pages of 100 to the end (GET /api/changes?since=...), the loop stopped and the
#      daemon idle: every contact once;
#   5. the full download, GET /api/export, streamed: its bytes and cards.
# wrk: BENCH_CONNECTIONS connections (4, on 2 threads: the page's limit from one address; 1: one client); the loop
# and the sampler come from 127.0.0.2 and 127.0.0.3, their own addresses. Memory is the footprint
# (Deploy/lib/footprint.py, every 10 ms; peak RSS and PSS beside it) of each step and of the whole run. The whole run
# is done for BENCH_BASE (1,000) contacts first, then for N (N alone when BENCH_BASE >= N). Budgets (exit 1 if one
# fails): p95 of the list and of the search <= 50 ms, at each size; the feed and the download give every contact;
# footprint <= 8 MB over each whole run, and N's within 1 MB of the base's; nothing killed in the cgroup; every sync
# run ok; exit 0 on SIGTERM.
#   Deploy/bench/contacts.sh     (Deploy/test.sh: BENCH_CONTACTS=1000 BENCH_BASE=200 BENCH_SECONDS=3)
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}" python3-venv curl wrk
# shellcheck source=Deploy/lib/venv.sh
source Deploy/lib/venv.sh
ensure_venv
# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
# shellcheck disable=SC2119 # no extra swift build flags
release_build
contactbox=$CONTACTBOX_BIN
contacts=${BENCH_CONTACTS:-50000}
base=${BENCH_BASE:-1000}
seconds=${BENCH_SECONDS:-20}
connections=${BENCH_CONNECTIONS:-4}
photos=${BENCH_PHOTOS:-0.1}
photo_size=${BENCH_PHOTO_SIZE:-20000-50000}
cap_kb=$((20 * 1024))
budget_kb=$((8 * 1024))
flat_kb=1024
p95_budget_ms=50
sizes=("$contacts")
((base < contacts)) && sizes=("$base" "$contacts")

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh
bench_on_exit+=(memcap_remove)
# shellcheck source=Deploy/lib/memcap.sh
source Deploy/lib/memcap.sh
# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
# shellcheck source=Deploy/lib/bench-daemon.sh
source Deploy/lib/bench-daemon.sh
radicale_configure "$work"
api=Deploy/bench/contacts_api.py

# set by contacts.lua's line (load)
p50_ms=0 p95_ms=0 p99_ms=0 max_ms=0 requests=0 not_2xx=0 socket_errors=0
failures=()
fail() { failures+=("N=$n: $*"); }
row() { printf '%-58s %10s %9s %13s %12s %7s\n' "$@"; }
# step NAME VALUE: the footprint since the previous step, as a row
step() {
    footprint_window "$work/run.fp"
    row "$1" "$2" "$((SECONDS - step_started)) s" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" "$(mb "$pss_kb")"
    step_started=$SECONDS
}
urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
# from ADDRESS CURL_ARGS...: curl from a loopback address of its own (the page limits connections by address)
from() {
    local address=$1
    shift
    curl -s --max-time 30 --interface "$address" "$@"
}
runs_from() {
    from "$1" "$status/metrics" | awk '$1 ~ /^contactbox_sync_runs_total/ { n += $2 } END { print n + 0 }'
}

# syncer: until $work/syncing is gone, changes 5 cards on Radicale (PUT, from 127.0.0.2) and asks for a pass, and
# again once it has ended
syncer() {
    local round=0 runs file uid
    while [[ -e $work/syncing ]]; do
        round=$((round + 1))
        while read -r file; do
            uid=${file##*/}
            sed "s/^END:VCARD/X-BENCH-EDIT:$round\r\nEND:VCARD/" "$file" >"$work/edit.vcf"
            from 127.0.0.2 -o /dev/null -u alice:bench-pw -T "$work/edit.vcf" -H 'Content-Type: text/vcard' \
                -H 'Expect:' "$book$uid" || true
        done < <(find "$radicale_storage" -maxdepth 1 -name '*.vcf' | shuf -n 5)
        runs=$(runs_from 127.0.0.2)
        from 127.0.0.2 -o /dev/null -X POST "$status/api/sync" || true
        while [[ -e $work/syncing ]] && (($(runs_from 127.0.0.2) <= runs)); do sleep 0.2; done
    done
}
# sampler FILE: /api/status's state every 0.2 s into FILE (a line each), from 127.0.0.3, until killed
sampler() {
    while true; do
        from 127.0.0.3 "$status/api/status" | sed -n 's/.*"state":"\([a-z]*\)".*/\1/p' >>"$1" || true
        sleep 0.2
    done
}
# load NAME PATHS: wrk over the paths of the file PATHS for $seconds s while the syncer runs; sets p50_ms p95_ms
# p99_ms max_ms requests not_2xx socket_errors, and sync_note (how much of the window a sync ran)
load() {
    local sampler_pid runs_before runs_after busy samples
    : >"$work/$1.states"
    sampler "$work/$1.states" &
    sampler_pid=$!
    pids+=("$sampler_pid")
    runs_before=$(runs_from 127.0.0.3)
    # The page allows 4 connections per address, wrk's 4 among them: the last run's may still be closing on the
    # box's side (a connection refused then is a socket error).
    sleep 1
    wrk -t"$((connections < 2 ? 1 : 2))" -c"$connections" -d"${seconds}s" --timeout 10s \
        -H "Authorization: Bearer $token" -s Deploy/bench/contacts.lua "$status" -- "$2" >"$work/$1.wrk"
    runs_after=$(runs_from 127.0.0.3)
    kill "$sampler_pid" 2>/dev/null || true
    wait "$sampler_pid" 2>/dev/null || true
    # shellcheck disable=SC1090 # contacts.lua's line of assignments
    source <(grep '^p50_ms=' "$work/$1.wrk")
    samples=$(wc -l <"$work/$1.states")
    busy=$(grep -c '^syncing$' "$work/$1.states" || true)
    sync_note="a sync ran in $busy of $samples samples of /api/status, $((runs_after - runs_before)) runs ended"
    ((busy > 0 || runs_after > runs_before)) || fail "$1: no sync ran during the ${seconds} s of wrk"
    ((requests > 0 && not_2xx == 0 && socket_errors == 0)) ||
        fail "$1: $requests requests, $not_2xx not 2xx, $socket_errors socket errors ($(grep -i 'socket errors' "$work/$1.wrk" || true))"
    awk -v p="$p95_ms" -v b="$p95_budget_ms" 'BEGIN { exit !(p <= b) }' ||
        fail "$1: p95 $p95_ms ms > $p95_budget_ms ms"
}

# measure N: the whole run at N contacts; sets whole_kb_N and the figures' variables named with _N
measure() {
    n=$1
    python3 Deploy/bench/gen_contacts.py "$n" "$work/cards.vcf" --seed 35 --photos "$photos" \
        --photo-size "$photo_size" --copies 0
    local book_mb with_photo
    book_mb=$(du -m "$work/cards.vcf" | cut -f1)
    with_photo=$(grep -c '^PHOTO' "$work/cards.vcf" || true)
    # Search terms from the cards: a rare email and phone number (one card's), besides the common ones.
    local rare_email rare_phone
    rare_email=$(grep -m1 '^EMAIL' <(tail -n +"$(($(wc -l <"$work/cards.vcf") / 2))" "$work/cards.vcf") | cut -d: -f2 |
        tr -d '\r')
    rare_phone=$(grep -m1 '^TEL' <(tail -n +"$(($(wc -l <"$work/cards.vcf") / 3))" "$work/cards.vcf") | cut -d: -f2 |
        tr -d '\r')
    radicale_start 0 "$work/cards.vcf"
    rm "$work/cards.vcf"
    radicale_storage=$radicale_work/storage/collection-root/alice/contacts
    echo
    echo "--- N=$n: $n contacts in Radicale ($book_mb MB of vCards, $with_photo with a photo of $photo_size bytes)"

    local prefix=()
    if [[ -n $memcap_kind ]]; then
        memcap_make "contacts-$n" "$cap_kb"
        prefix=("${memcap_prefix[@]}")
    fi
    row "step" "value" "wall" "footprint MB" "peak RSS MB" "PSS MB"
    step_started=$SECONDS run_started=$SECONDS
    daemon_start "contacts-$n" 1h "$(carddav_remote)" "${prefix[@]}"
    footprint_watch "$pid" "$work/run.fp"
    daemon_wait_runs 1 7200 || fail "the first sync did not end"
    (($(daemon_runs ok) == 1)) || fail "the first sync did not end ok"
    step "start, first sync downloading $n" "$(du -m "$daemon_dir/contacts.sqlite" | cut -f1) MB"

    token=$("$contactbox" token create bench --db "$daemon_dir/contacts.sqlite" 2>"$work/token.err" | tail -1) ||
        { cat "$work/token.err" >&2 && exit 1; }
    local code
    for _ in $(seq 50); do
        code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$status/api/contacts?limit=1")
        [[ $code == 200 ]] && break
        sleep 0.1
    done
    [[ $code == 200 ]] || { echo "the token is refused: HTTP $code" >&2 && exit 1; }

    # 1. the whole list, its cursors kept
    local pages count ms slowest_ms http bytes
    # shellcheck disable=SC1090 # contacts_api.py's line of assignments
    source <(python3 "$api" list "$status" "$token" "$work/cursors")
    ((http == 200 && count == n)) || fail "the list gave $count contacts of $n (HTTP $http)"
    step "1. the list to the end: $pages pages (slowest ${slowest_ms} ms)" "$ms ms"

    {
        echo "/api/contacts?limit=100"
        sed 's|^|/api/contacts?limit=100\&after=|' "$work/cursors"
    } >"$work/list.paths"
    local q
    for q in Müller anna "Chiara Rossi" Østergaard Hafenlogistik clinic mail1.example "555 12" 030 "$rare_email" \
        "$rare_phone" Zzyzx; do
        echo "/api/contacts?limit=100&q=$(urlencode "$q")"
    done >"$work/search.paths"

    touch "$work/syncing"
    syncer &
    syncer_pid=$!
    pids+=("$syncer_pid")
    sleep 1

    # 2 and 3, under wrk
    load list "$work/list.paths"
    step "2. list pages under wrk, ${seconds} s: p50 / p95 / p99" "$p50_ms / $p95_ms / $p99_ms ms"
    echo "   $requests requests, max $max_ms ms; $sync_note"
    eval "list_p95_$n=$p95_ms"
    load search "$work/search.paths"
    step "3. searches under wrk, ${seconds} s: p50 / p95 / p99" "$p50_ms / $p95_ms / $p99_ms ms"
    echo "   $requests requests, max $max_ms ms; $sync_note"
    eval "search_p95_$n=$p95_ms"
    rm "$work/syncing"
    wait "$syncer_pid" || true
    daemon_wait_runs "$(daemon_runs)" 1800 || fail "the last sync of the load did not end"

    # 4. the changes feed from 0
    # shellcheck disable=SC1090
    source <(python3 "$api" feed "$status" "$token")
    ((http == 200 && count == n)) || fail "the changes feed gave $count contacts of $n (HTTP $http)"
    step "4. the changes feed from 0: $pages pages of 100 (slowest ${slowest_ms} ms)" "$ms ms"
    eval "feed_ms_$n=$ms"

    # 5. the full download
    # shellcheck disable=SC1090
    source <(python3 "$api" export "$status" "$token")
    ((http == 200 && count == n)) || fail "the download gave $count cards of $n (HTTP $http)"
    step "5. GET /api/export: $(mb $((bytes / 1024))) MB, $count cards" "$ms ms"
    eval "export_ms_$n=$ms export_mb_$n=$(mb $((bytes / 1024)))"

    local all ok
    all=$(daemon_runs) ok=$(daemon_runs ok)
    ((all == ok)) || fail "$((all - ok)) of $all sync runs did not end ok"
    daemon_stop
    footprint_stop "$work/run.fp"
    row "the whole run ($all sync runs)" "" "$((SECONDS - run_started)) s" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" \
        "$(mb "$pss_kb")"
    eval "whole_kb_$n=$fp_kb hwm_kb_$n=$hwm_kb"
    ((fp_kb <= budget_kb)) || fail "the daemon's footprint $(mb "$fp_kb") MB > $((budget_kb / 1024)) MB"
    ((daemon_exit == 0)) || fail "the daemon exited $daemon_exit on SIGTERM (137: killed)"
    if [[ -n $memcap_kind ]]; then
        memcap_events
        local group='-'
        [[ $memcap_peak_kb =~ ^[0-9]+$ ]] && group="$(mb "$memcap_peak_kb") MB"
        echo "the cgroup: peak $group (page cache included), limit hits $memcap_limit_hits, OOM kills" \
            "$memcap_oom_kills"
        [[ $memcap_oom_kills == 0 || $memcap_oom_kills == '?' ]] ||
            fail "$memcap_oom_kills processes killed in the memory cgroup"
        memcap_remove
    fi
}

memcap_detect
if [[ -n $memcap_kind ]]; then
    cap_note="a memory cgroup ($memcap_kind) with a hard limit of $((cap_kb / 1024)) MB"
else
    cap_note="no memory cgroup: $memcap_why (uncapped)"
fi
echo "the daemon in $cap_note; wrk: $connections connections, ${seconds} s a load; sizes ${sizes[*]}"
for size in "${sizes[@]}"; do measure "$size"; done

# --- the figures -----------------------------------------------------------------------------------------------------
echo
printf '%-10s %13s %15s %12s %14s %14s %14s\n' contacts "list p95 ms" "search p95 ms" "feed ms" "export ms" \
    "export MB" "footprint MB"
for size in "${sizes[@]}"; do
    l="list_p95_$size" s="search_p95_$size" f="feed_ms_$size" e="export_ms_$size" em="export_mb_$size"
    w="whole_kb_$size"
    printf '%-10s %13s %15s %12s %14s %14s %14s\n' "$size" "${!l:--}" "${!s:--}" "${!f:--}" "${!e:--}" "${!em:--}" \
        "$(mb "${!w:-0}")"
done
if ((${#sizes[@]} == 2)); then
    first="whole_kb_${sizes[0]}" last="whole_kb_${sizes[1]}"
    diff_kb=$((${!last:-0} - ${!first:-0}))
    echo "footprint at ${sizes[1]} minus at ${sizes[0]}: $diff_kb KB (budget $flat_kb KB)"
    n=${sizes[1]}
    ((diff_kb <= flat_kb)) || fail "the footprint is $diff_kb KB over that at ${sizes[0]}, more than $flat_kb KB"
fi

echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: p95 of list pages and searches <= $p95_budget_ms ms while a sync runs; the feed and the download" \
    "give every contact; footprint <= $((budget_kb / 1024)) MB${sizes[1]:+ and flat within $flat_kb KB}," \
    "in $cap_note; every sync ok; nothing killed; exit 0 on SIGTERM"
