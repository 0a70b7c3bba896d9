#!/usr/bin/env bash
# Setup benchmark: the daemon's footprint through the page's setup session, as a household sets up a new box. A
# release `contactbox run` (simulated panel) on a fresh store with no address book, inside a memory cgroup with a hard
# 20 MB limit (Deploy/lib/memcap.sh; where none can be made it runs uncapped and says so), driven over HTTP with curl
# as the page's script drives it:
#   1. start: the page says "needs setup"; the page's bytes (GET /, and asked for with Accept-Encoding: gzip);
#   2. pair: the one-time code of `contactbox pair --db STORE`, posted to /api/pairing;
#   3. find: POST /api/setup action=find, provider carddav, Radicale's root URL on 127.0.0.1 with its user and
#      password; GET /api/setup until the phase is "found";
#   4. add: action=add of the book found; the daemon saves settings.toml and secrets/ beside the store, reloads, and
#      its first sync downloads the book's N contacts (BENCH_CONTACTS, default 1,000);
#   5. interval: POST /api/settings action=interval&value=30m with the version GET /api/settings gave; the daemon
#      reloads, and the reload's pass syncs the book again (nothing to do);
#   6. folder: a folder found and added the same way; its first sync writes the N contacts into it;
#   7. idle, then SIGTERM.
# Memory as in appliance.sh: the footprint (Deploy/lib/footprint.py, every 10 ms) of each step and of the whole
# session, with peak RSS and PSS beside it, and the cgroup's peak (page cache included). Budgets (exit 1 if one
# fails): each step ends as the page expects it to; footprint <= 8 MB over the whole session; nothing killed in the
# cgroup; exit 0 on SIGTERM.
#   BENCH_CONTACTS=1000 Deploy/bench/setup.sh     (Deploy/test.sh runs it with 100)
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}" python3-venv curl
# shellcheck source=Deploy/lib/venv.sh
source Deploy/lib/venv.sh
ensure_venv
# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
# shellcheck disable=SC2119 # no extra swift build flags
release_build
contactbox=$CONTACTBOX_BIN
contacts=${BENCH_CONTACTS:-1000}
cap_kb=$((20 * 1024))
budget_kb=$((8 * 1024))

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
radicale_start "$contacts"

failures=()
fail() { failures+=("$*"); }
row() { printf '%-52s %8s %13s %12s %7s\n' "$@"; }

# until_ok SECONDS CMD...: runs CMD every 0.1 s until it succeeds; fails after SECONDS, or at once if the daemon
# has ended.
until_ok() {
    local deadline=$((SECONDS + $1))
    shift
    while ((SECONDS < deadline)); do
        kill -0 "$pid" 2>/dev/null || return 1
        "$@" && return 0
        sleep 0.1
    done
    return 1
}

# page METHOD PATH [FORM]: a request as the page's script sends it (same origin; once paired, with the pairing's
# cookie and token; FORM urlencoded); the body goes to $work/page.body, the headers to $work/page.headers; prints
# the HTTP status.
cookie='' token=''
page() {
    curl -s --max-time 10 -D "$work/page.headers" -o "$work/page.body" -w '%{http_code}' -X "$1" \
        -H "Origin: $status" -H 'Sec-Fetch-Site: same-origin' ${cookie:+-H "Cookie: $cookie"} \
        ${token:+-H "X-ContactBox-Token: $token"} ${3:+--data "$3"} "$status$2"
}
status_has() { curl -s --max-time 5 "$status/api/status" | grep -q "$1"; }
# setup_settled: GET /api/setup shows a phase that is no step in progress (finding, adding); sets phase.
setup_settled() {
    [[ $(page GET /api/setup) == 200 ]] || return 1
    phase=$(sed -n 's/^{"phase":"\([a-z]*\)".*/\1/p' "$work/page.body")
    [[ -n $phase && $phase != finding && $phase != adding ]]
}
# setup_step NAME FORM: posts FORM to /api/setup and waits until the step is over; true if it ends at NAME.
setup_step() {
    local code
    code=$(page POST /api/setup "$2")
    [[ $code == 202 ]] || { echo "POST /api/setup $2: HTTP $code: $(cat "$work/page.body")" >&2 && return 1; }
    if ! until_ok 120 setup_settled; then
        echo "the setup step did not end within 120 s: $(cat "$work/page.body")" >&2
        return 1
    fi
    [[ $phase == "$1" ]] || { echo "the setup step ended $phase: $(cat "$work/page.body")" >&2 && return 1; }
}
urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
# step NAME: the footprint since the previous step, as a row
step() {
    footprint_window "$work/setup.fp"
    row "$1" "$((SECONDS - step_started)) s" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" "$(mb "$pss_kb")"
    step_started=$SECONDS
}
# page_bytes WHEN: the page's size as served, and asked for with Accept-Encoding: gzip
page_bytes() {
    local plain gzipped encoding
    plain=$(curl -s --max-time 10 -o "$work/page.html" -w '%{size_download}' "$status/")
    gzipped=$(curl -s --max-time 10 -H 'Accept-Encoding: gzip' -D "$work/page-gzip.headers" -o /dev/null \
        -w '%{size_download}' "$status/")
    encoding=$(tr -d '\r' <"$work/page-gzip.headers" | sed -n 's/^[Cc]ontent-[Ee]ncoding: *//p')
    if [[ -n $encoding ]]; then
        echo "the page, GET / $1: $plain bytes; with Accept-Encoding: gzip, $gzipped bytes ($encoding)"
    else
        echo "the page, GET / $1: $plain bytes; uncompressed with Accept-Encoding: gzip too ($gzipped bytes;" \
            "gzip -9 would make it $(gzip -9c "$work/page.html" | wc -c))"
    fi
}

# --- the daemon, in its memory cgroup ---------------------------------------------------------------------------
memcap_detect
prefix=()
if [[ -n $memcap_kind ]]; then
    memcap_make setup "$cap_kb"
    prefix=("${memcap_prefix[@]}")
    cap_note="memory cgroup ($memcap_kind) with a hard limit of $((cap_kb / 1024)) MB"
else
    cap_note="no memory cgroup: $memcap_why (uncapped)"
fi
echo "$contacts contacts in Radicale; the daemon in a $cap_note"
row "step" "wall" "footprint MB" "peak RSS MB" "PSS MB"
step_started=$SECONDS
daemon_start setup "" "" "${prefix[@]}"
store=$daemon_dir/contacts.sqlite
footprint_watch "$pid" "$work/setup.fp"

# 1. needs setup
until_ok 60 status_has '"state":"setup"' || fail "start: the page did not say \"needs setup\" within 60 s"
step "1. start: needs setup"
page_before=$(page_bytes "needing setup")

# 2. pairing with the one-time code
code=$("$contactbox" pair --db "$store" 2>"$work/pair.err" | sed -n '1s/.* //p') || true
if [[ $code =~ ^[0-9A-Za-z-]+$ ]] && [[ $(page POST "/api/pairing?code=$code") == 200 ]]; then
    cookie=$(tr -d '\r' <"$work/page.headers" | sed -n 's/^[Ss]et-[Cc]ookie: \(contactbox_pairing=[0-9a-f]*\);.*/\1/p')
    token=$(sed -n 's/.*"token":"\([0-9a-f]*\)".*/\1/p' "$work/page.body")
fi
[[ -n $cookie && -n $token ]] || fail "pair: no pairing with the code '$code' ($(cat "$work/pair.err" "$work/page.body"))"
step "2. paired with the one-time code"

# 3. find, from Radicale's root URL
root=${book%%/alice/*}/
setup_step found "action=find&provider=carddav&address=$(urlencode "$root")&username=alice&password=bench-pw" ||
    fail "find: $root did not end found"
grep -q "\"url\":\"$book\"" "$work/page.body" || fail "find: $book is not among the books found"
step "3. find: the books of $root"

# 4. add, and the first sync
setup_step added "action=add&books=$(urlencode "$book")" || fail "add: $book did not end added"
[[ -s $daemon_dir/settings.toml ]] || fail "add: no settings.toml beside the store"
if ! { until_ok 1800 status_has "\"contacts\":${contacts}[,}]" && daemon_wait_runs 1 60; }; then
    fail "add: the first sync did not bring the $contacts contacts"
fi
(($(daemon_runs ok) >= 1)) || fail "add: the first sync did not end ok"
step "4. add, saved, reloaded; first sync of $contacts"

# 5. the sync interval, with the settings' version
interval_set() { [[ $(page GET /api/settings) == 200 ]] && grep -q '"interval":"30m"' "$work/page.body"; }
runs_before=$(daemon_runs)
[[ $(page GET /api/settings) == 200 ]] || fail "interval: GET /api/settings: $(cat "$work/page.body")"
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' "$work/page.body")
answer=$(page POST /api/settings "action=interval&value=30m&version=$(urlencode "$version")")
[[ $answer == 200 ]] || fail "interval: POST /api/settings: HTTP $answer: $(cat "$work/page.body")"
until_ok 30 interval_set || fail "interval: GET /api/settings does not show 30m"
grep -q '30m' "$daemon_dir/settings.toml" || fail "interval: not saved in settings.toml"
# (the daemon reloads, and the reload's pass syncs the book again: nothing to do)
daemon_wait_runs $((runs_before + 1)) 600 || fail "interval: the pass after the reload did not end"
step "5. interval 30m, saved"

# 6. a folder, found and added the same way; its first sync writes every contact there
folder=$work/kitchen
mkdir -p "$folder"
runs_before=$(daemon_runs)
files_arrived() { [[ $(find "$folder" -name '*.vcf' | wc -l) -eq $contacts ]]; }
setup_step found "action=find&provider=folder&address=$(urlencode "$folder")" || fail "folder: not found"
setup_step added "action=add&books=$(urlencode "$folder")" || fail "folder: not added"
if ! { until_ok 600 files_arrived && daemon_wait_runs $((runs_before + 1)) 60; }; then
    fail "folder: its first sync did not write the $contacts contacts"
fi
step "6. a folder added; its first sync writes $contacts"
(($(daemon_runs ok) == $(daemon_runs))) || fail "some sync runs did not end ok ($(daemon_runs ok) of $(daemon_runs))"
page_after=$(page_bytes "with two address books")

# 7. idle, and the end
sleep 5
footprint_now "$pid"
row "7. idle after the session (now)" "" "$(mb "$fp_kb")" "$(mb "$rss_kb") now" "$(mb "$pss_kb")"
daemon_stop
footprint_stop "$work/setup.fp"
session_kb=$fp_kb
row "the whole session (peak)" "" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" "$(mb "$pss_kb")"
oom=0 group='-'
if [[ -n $memcap_kind ]]; then
    memcap_events
    oom=$memcap_oom_kills
    [[ $memcap_peak_kb =~ ^[0-9]+$ ]] && group="$(mb "$memcap_peak_kb") MB"
    echo "the cgroup: peak $group (page cache included), limit hits $memcap_limit_hits, OOM kills $oom"
    memcap_remove
fi
echo "$page_before"
echo "$page_after"
((session_kb <= budget_kb)) || fail "the daemon's footprint $(mb "$session_kb") MB > $((budget_kb / 1024)) MB"
[[ $oom == 0 || $oom == '?' ]] || fail "$oom processes killed in the memory cgroup"
((daemon_exit == 0)) || fail "the daemon exited $daemon_exit on SIGTERM (137: killed)"

echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    echo "the daemon's log (last 20 lines):" && tail -20 "$daemon_dir/daemon.log"
    exit 1
fi
echo "budget ok: every step of the setup session ended as the page expects; footprint <= $((budget_kb / 1024)) MB" \
    "through it, in a $cap_note; nothing killed; exit 0 on SIGTERM"
