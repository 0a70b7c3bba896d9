#!/usr/bin/env bash
# Big photos (issue 31): a book of phones' photos through the release binaries, against Radicale on 127.0.0.1.
# The book: 32 contacts with a photo of 1.4 MB (1.9 MB of base64) and 5 with one of 10 MB (13.3 MB of base64, under
# the 16 MiB a card may have), each a 3.0 `PHOTO;ENCODING=b;TYPE=JPEG:` value folded at 75 octets
# (Deploy/bench/gen_contacts.py --photo-bytes). Each phase is one `contactbox sync` process, measured as the
# footprint (Deploy/lib/footprint.sh), with peak RSS and PSS beside it:
#   quarter   download of a book a quarter the size (8 + 1) into a fresh store: the reference for "flat";
#   download  (a) the whole book into a fresh store;
#   upload    (b) a copy of that store to a fresh, empty book (a remote of another name);
#   1%        (c) a new photo for one 1.9 MB contact on the server (a PUT) and for one 10 MB contact in the store
#             (`contactbox import --update`, the new one 1.9 MB), then a sync of the store of (a) with its book;
#   daemon    (d) `contactbox run` on a fresh store with the book, in a memory cgroup with the unit's MemoryHigh=20M
#             and MemoryMax=32M (Deploy/lib/memcap.sh; cgroup v1 has no MemoryHigh: the 32 MB limit only),
#             page cache dropped first, until its start-up sync is done, then SIGTERM; the book as (c) left it.
# Budgets (exit 1 if one fails, printing which): footprint <= 8 MB in (a), (b), (c); (a) within 1 MB of the quarter
# book's (flat); every sync exits 0; (d) nothing killed, the sync ends ok and the daemon exits 0 on SIGTERM.
# Data checks, failures too: after every phase, each side holds every contact, each photo byte for byte the one
# generated (or changed) (Deploy/bench/photo_digests.sh: the SHA-256 of each PHOTO's decoded bytes, by UID), and no
# contact in a store is unreadable ("(unreadable)" in `contactbox list`).
# (d) is skipped, saying why, where no memory cgroup can be made (it needs root or systemd). Most of a run's time is
# Radicale parsing the 10 MB photos, when it first serves the book and at each PUT of (b) (the runs' times:
# Docs/measurements/2026-11-photos.md).
#   Deploy/bench/photos.sh        BENCH_SMALL (32), BENCH_BIG (5), BENCH_SMALL_BYTES (1400000), BENCH_BIG_BYTES (10000000)
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

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh
bench_on_exit+=(memcap_remove)
# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh
# shellcheck source=Deploy/lib/memcap.sh
source Deploy/lib/memcap.sh
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
# shellcheck source=Deploy/lib/bench-daemon.sh
source Deploy/lib/bench-daemon.sh

small=${BENCH_SMALL:-32} big=${BENCH_BIG:-5}
small_bytes=${BENCH_SMALL_BYTES:-1400000} big_bytes=${BENCH_BIG_BYTES:-10000000}
quarter_small=$((small > 3 ? small / 4 : 1)) quarter_big=$((big > 3 ? big / 4 : 1))
total=$((small + big))
digests=Deploy/bench/photo_digests.sh

# --- the books -----------------------------------------------------------------------------------------------------
# The same seeds give the same contacts: the quarter book is the first cards of the whole one; another --photo-seed
# gives the same contact with a new photo.
gen() { python3 Deploy/bench/gen_contacts.py "$@"; }
gen "$small" "$work/small.vcf" --seed 11 --photo-bytes "$small_bytes"
gen "$big" "$work/big.vcf" --seed 12 --photo-bytes "$big_bytes"
gen "$quarter_small" "$work/quarter-small.vcf" --seed 11 --photo-bytes "$small_bytes"
gen "$quarter_big" "$work/quarter-big.vcf" --seed 12 --photo-bytes "$big_bytes"
# (c): the first 1.9 MB contact with a new photo (on the server), the first 10 MB one with a new 1.4 MB photo (local)
gen 1 "$work/server-edit.vcf" --seed 11 --photo-bytes "$small_bytes" --photo-seed 101
gen 1 "$work/local-edit.vcf" --seed 12 --photo-bytes "$small_bytes" --photo-seed 102
"$digests" "$work/small.vcf" "$work/big.vcf" >"$work/expected.txt"
"$digests" "$work/quarter-small.vcf" "$work/quarter-big.vcf" >"$work/expected-quarter.txt"
# after (c): the two changed photos instead of the generated ones (sort -s -u keeps the first line of each UID)
"$digests" "$work/server-edit.vcf" "$work/local-edit.vcf" | cat - "$work/expected.txt" | LC_ALL=C sort -s -u -k1,1 \
    >"$work/expected-changed.txt"
server_uid=$(awk '{ print $1 }' <("$digests" "$work/server-edit.vcf"))
local_uid=$(awk '{ print $1 }' <("$digests" "$work/local-edit.vcf"))
book_mb=$(du -cm "$work/small.vcf" "$work/big.vcf" | awk 'END { print $1 }')
echo "book: $small contacts with a $small_bytes-byte photo, $big with a $big_bytes-byte one ($book_mb MB of vCards);" \
    "the quarter book $quarter_small + $quarter_big"

# Radicale parses every card it serves once (vobject, then its cache), in a time that grows with the square of the
# line: minutes for a 13.3 MB photo (Docs/servers.md). So its book is read once, here, and never again: the
# quarter book gets the parsed cards of the same files, and the daemon syncs the book as (c) left it.
radicale_configure "$work"
echo "Radicale reads the book ..."
started=$SECONDS
radicale_start 0 "$work/small.vcf" "$work/big.vcf"
echo "  $((SECONDS - started)) s"
collections=$radicale_work/storage/collection-root/alice
book_url=$book
quarter_url=${book%contacts/}quarter/
upload_url=${book%contacts/}upload/
python3 Deploy/bench/seed_radicale.py collection "$collections/quarter" 0
python3 Deploy/bench/seed_radicale.py split "$work/quarter-small.vcf" "$collections/quarter"
python3 Deploy/bench/seed_radicale.py split "$work/quarter-big.vcf" "$collections/quarter"
# (the cache is checked against each file's content: the same files are hits)
mkdir -p "$collections/quarter/.Radicale.cache"
cp -R "$collections/contacts/.Radicale.cache/item" "$collections/quarter/.Radicale.cache/" 2>/dev/null ||
    echo "  (Radicale's cache not copied: it reads the quarter book again)"
python3 Deploy/bench/seed_radicale.py collection "$collections/upload" 0
# Radicale reads and caches a collection at its first request: every client gets a warm server.
for url in "$quarter_url" "$upload_url"; do
    curl -s "${curl_tls[@]}" -o /dev/null -u "alice:$(cat "$work/password")" -X PROPFIND -H 'Depth: 1' "$url"
done

# --- helpers -------------------------------------------------------------------------------------------------------
failures=()
fail() { failures+=("$1") && echo "  FAILED: $1"; }

# config NAME URL [REMOTE_NAME]: $work/NAME/contactbox.toml, its store $work/NAME/contacts.sqlite, one CardDAV remote
config() {
    mkdir -p "$work/$1"
    { printf 'store = "%s"\n' "$work/$1/contacts.sqlite" && book=$2 carddav_remote; } |
        sed "s/^name = \"radicale\"/name = \"${3:-radicale}\"/" >"$work/$1/contactbox.toml"
}

row() { printf '%-10s %-34s %7s %13s %12s %7s  %s\n' "$@"; }
row phase what "wall s" "footprint MB" "peak RSS MB" "PSS MB" "requests / result"

# sync PHASE WHAT NAME [CODE]: one measured `contactbox sync` of $work/NAME; prints its row; returns its status, a
# failure unless 0 (or CODE).
sync_phase() {
    local code=0 requests
    CONTACTBOX_LOG_LEVEL=debug footprint_run "$work/$1.fp" "$contactbox" sync --config "$work/$3/contactbox.toml" \
        >"$work/$1.out" 2>"$work/$1.err" || code=$?
    requests=$(grep -o 'http.method=[A-Z]*' "$work/$1.err" | sed 's/http.method=//' | sort | uniq -c |
        awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }')
    row "$1" "$2" "$wall_s" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" "$(mb "$pss_kb")" \
        "$( ((code == 0)) && echo "$requests" || echo "exit status $code")"
    if ((code != 0 && code != ${4:-0})); then
        fail "$1: contactbox sync exited with status $code"
        grep -v ' debug ' "$work/$1.err" | tail -n 4 | cut -c1-300 | sed 's/^/      /'
    fi
    return "$code"
}

# budget PHASE: the footprint just measured is within 8 MB
budget() { ((fp_kb <= 8 * 1024)) || fail "$1: footprint $(mb "$fp_kb") MB > 8 MB"; }

# compare WHAT EXPECTED SOURCE...: the photos of SOURCE (.vcf files or folders) are those of EXPECTED, by UID
compare() {
    local what=$1 expected=$2 got differ
    shift 2
    got=$work/got.txt
    "$digests" "$@" >"$got"
    if cmp -s "$expected" "$got"; then
        echo "  $what: all $(wc -l <"$got") photos byte for byte as expected"
        return 0
    fi
    differ=$(LC_ALL=C join -a1 -a2 -e absent -o 0,1.2,2.2 "$expected" "$got" | awk '$2 != $3 { print $1 ($3 == "absent" ?
        " (missing)" : $2 == "absent" ? " (unexpected)" : " (photo differs)") }')
    fail "$what: $(wc -l <"$got") contacts, $(grep -c . <<<"$differ") of them not as expected: $(head -n 3 <<<"$differ" |
        paste -sd' ')"
}

# check_store WHAT NAME EXPECTED: the store of $work/NAME holds every contact of EXPECTED, none unreadable, with the
# expected photos (its export)
check_store() {
    local db=$work/$2/contacts.sqlite listed unreadable
    if ! "$contactbox" export --db "$db" --out "$work/export.vcf" 2>"$work/export.err" ||
        ! listed=$("$contactbox" list --db "$db" 2>>"$work/export.err"); then
        fail "$1: the store cannot be read: $(tail -n 2 "$work/export.err" | paste -sd' ')"
        return
    fi
    unreadable=$(grep -c '(unreadable)' <<<"$listed" || true)
    ((unreadable == 0)) || fail "$1: $unreadable contacts are unreadable (opaque) in the store"
    compare "$1" "$3" "$work/export.vcf"
    rm -f "$work/export.vcf"
}

# A phase that fails is reported and the next ones still run where they can: each is measured however the one before
# ended, and its data checks say what is missing.
# --- flat: the quarter book, then (a) the whole book ---------------------------------------------------------------
config quarter "$quarter_url"
sync_phase quarter "download $quarter_small + $quarter_big" quarter || true
quarter_kb=$fp_kb
check_store "quarter: the store" quarter "$work/expected-quarter.txt"
rm -rf "${work:?}/quarter"

config download "$book_url"
downloaded=0
sync_phase download "(a) download $small + $big" download && downloaded=1
budget download
((fp_kb - quarter_kb <= 1024)) ||
    fail "flat: the download's footprint $(mb "$fp_kb") MB is over 1 MB above the quarter book's $(mb "$quarter_kb") MB"
check_store "(a) the store" download "$work/expected.txt"

# --- (b) upload: a copy of that store to an empty book -------------------------------------------------------------
config upload "$upload_url" upload
if ((downloaded)); then
    cp "$work"/download/contacts.sqlite* "$work/upload/"
else
    echo "  (b) uploads a store imported from the generated book instead: (a) did not download it all"
    "$contactbox" import --db "$work/upload/contacts.sqlite" "$work/small.vcf" "$work/big.vcf" >/dev/null \
        2>"$work/import.err" || fail "(b): contactbox import of the book: $(tail -n 2 "$work/import.err" | paste -sd' ')"
fi
# Radicale answers the PUT of a 13.3 MB card after about 2 min: the upload is longer than a remote's turn, which ends
# with exit status 75, the rest the next run's, as the daemon's next pass would carry on. At most 3 runs.
for run in 1 2 3; do
    code=0
    sync_phase upload "(b) upload $total to an empty book, run $run" upload 75 || code=$?
    budget upload
    ((code == 75)) || break
done
((code != 75)) || fail "(b): the upload did not end in 3 runs (each ended as too slow)"
compare "(b) the server's new book" "$work/expected.txt" "$collections/upload"
rm -rf "${work:?}/upload" "$collections/upload"

# --- (c) 1% changed on each side ----------------------------------------------------------------------------------
if [[ -e $work/download/contacts.sqlite ]]; then
    curl -sf "${curl_tls[@]}" -o /dev/null -u "alice:$(cat "$work/password")" -T "$work/server-edit.vcf" \
        -H 'Content-Type: text/vcard' "$book_url$server_uid.vcf" || fail "(c): the PUT of the server's change failed"
    if ! "$contactbox" import --update --db "$work/download/contacts.sqlite" "$work/local-edit.vcf" \
        >/dev/null 2>"$work/import.err"; then
        fail "(c): contactbox import --update of the local change failed: $(tail -n 2 "$work/import.err" | paste -sd' ')"
    fi
    sync_phase changes "(c) 1 changed on each side" download || true
    budget changes
    check_store "(c) the store" download "$work/expected-changed.txt"
    compare "(c) the server's book" "$work/expected-changed.txt" "$collections/contacts"
    if curl -sf "${curl_tls[@]}" -u "alice:$(cat "$work/password")" -o "$work/local-edit-got.vcf" \
        "$book_url$local_uid.vcf"; then
        "$digests" "$work/local-edit.vcf" >"$work/expected-local.txt"
        compare "(c) the local change, GET from the server" "$work/expected-local.txt" "$work/local-edit-got.vcf"
    else
        fail "(c): GET $local_uid.vcf from the server failed"
    fi
else
    row changes "(c) skipped: (a) made no store" "" "" "" "" ""
    fail "changes: not run, (a) made no store"
fi
rm -rf "${work:?}/download"

# --- (d) the daemon's start-up sync under the unit's cap ------------------------------------------------------------
memcap_detect
echo
if [[ -z $memcap_kind ]]; then
    echo "daemon: skipped: $memcap_why"
else
    memcap_make photos-daemon $((32 * 1024)) $((20 * 1024))
    memcap_drop_caches
    limit=${BENCH_DAEMON_SECONDS:-1800}
    started=$SECONDS
    daemon_start daemon 1h "$(carddav_remote)" "${memcap_prefix[@]}"
    footprint_watch "$pid" "$work/daemon.fp"
    synced=0 runs_ok=0
    if daemon_wait_runs 1 "$limit"; then
        synced=1
        runs_ok=$(daemon_runs ok)
    fi
    took=$((SECONDS - started))
    daemon_stop
    footprint_stop "$work/daemon.fp"
    memcap_events
    memcap_remove
    group=$memcap_peak_kb
    [[ $group =~ ^[0-9]+$ ]] && group="$(mb "$group") MB"
    row daemon "(d) start-up sync of $total, capped" "$took" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" "$(mb "$pss_kb")" \
        "cgroup peak $group, OOM kills $memcap_oom_kills, exit $daemon_exit"
    echo "  the cgroup: $memcap_kind, MemoryMax=32M, ${memcap_high:-MemoryHigh=20M}; page cache $memcap_cold"
    ((synced)) || fail "daemon: the start-up sync did not end (the daemon ended, or not idle within $limit s)"
    ((!synced || runs_ok == 1)) || fail "daemon: the start-up sync did not end ok (runs ok: $runs_ok)"
    # (a systemd scope is gone with its process: it does not say, and a kill shows as exit status 137)
    [[ $memcap_oom_kills == 0 || $memcap_oom_kills == '?' ]] ||
        fail "daemon: $memcap_oom_kills processes killed in the cgroup (OOM)"
    ((daemon_exit == 0)) || fail "daemon: exit status $daemon_exit on SIGTERM (137: killed)"
    if [[ -e $work/daemon/contacts.sqlite ]]; then
        # the book as (c) left it, which (c) compared with the generated photos and its two changes
        "$digests" "$collections/contacts" >"$work/expected-book.txt"
        check_store "(d) the daemon's store" daemon "$work/expected-book.txt"
    else
        fail "daemon: no store"
    fi
fi

echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: footprint <= 8 MB in download, upload and 1% each side, flat within 1 MB of the quarter book;" \
    "the daemon's start-up sync inside MemoryMax=32M with nothing killed; every photo byte for byte on both sides"
