#!/usr/bin/env bash
# Sync benchmark: wall time, requests by method and memory of a release `contactbox
# sync` against Radicale on 127.0.0.1, for an initial download of N contacts, a no-op
# sync, a sync after changing 1% on each side, and an initial upload of 1,000; then
# 500 cards that all carry a photo, uploaded and downloaded (a sync's chunks are bounded
# by size as well as count); vdirsyncer downloads the same data for the ratio. Memory is
# the footprint (peak private memory, Deploy/lib/footprint.py), with peak RSS (VmHWM)
# and PSS beside it. Budgets (exit 1 if one fails): footprint <= 8 MB for every job and
# within 1 MB of the first size; a no-op sync is one request. The ratio to
# vdirsyncer is printed; the speed goals are Deploy/bench/speed.sh's.
#   BENCH_SIZES="1000 10000" Deploy/bench/sync.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}" python3-venv
# shellcheck source=Deploy/lib/venv.sh
source Deploy/lib/venv.sh
ensure_venv

read -ra sizes <<<"${BENCH_SIZES:-1000 10000 50000}"
# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
# shellcheck disable=SC2119 # no extra swift build flags
release_build
contactbox=$CONTACTBOX_BIN

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
radicale_configure "$work"
start_radicale() { radicale_start "$1"; }

write_config() { # write_config STORE
    cat >"$work/contactbox.toml" <<CONF
store = "$1"
[[remote]]
name = "radicale"
kind = "carddav"
url = "$book"
username = "alice"
password_file = "$work/password"
$ca_line
CONF
}

# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh
# shellcheck source=Deploy/lib/bench-vdirsyncer.sh
source Deploy/lib/bench-vdirsyncer.sh
# measure CMD...: runs CMD sampled, with request logging; sets wall_s, fp_kb, hwm_kb, pss_kb, requests.
measure() {
    if ! CONTACTBOX_LOG_LEVEL=debug footprint_run "$work/fp" "$@" >"$work/out" 2>"$work/err"; then
        echo "failed: $*" >&2 && tail -20 "$work/err" "$work/out" >&2 && exit 1
    fi
    requests=$(grep -o 'http.method=[A-Z]*' "$work/err" | sed 's/http.method=//' | sort | uniq -c |
        awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }')
    total_requests=$(grep -c 'http.method=' "$work/err" || true)
}

failures=()
declare -A base
budget() { # budget N WHAT FOOTPRINT_KB
    (($3 <= 8 * 1024)) || failures+=("N=$1 $2: footprint $(mb "$3") MB > 8 MB")
    [[ -z ${base[$2]:-} ]] && base[$2]=$3
    (($3 - base[$2] <= 1024)) || failures+=("N=$1 $2: footprint $(mb "$3") MB is over 1 MB above N=${sizes[0]}")
}
row() { printf '%-26s %8s %13s %12s %7s  %s\n' "$@"; }
memory() { echo "$(mb "$fp_kb") $(mb "$hwm_kb") $(mb "$pss_kb")"; }

row "run" "wall s" "footprint MB" "peak RSS MB" "PSS MB" "requests"
for n in "${sizes[@]}"; do
    start_radicale "$n"
    rm -f "$work"/store.sqlite*
    write_config "$work/store.sqlite"
    measure "$contactbox" sync --config "$work/contactbox.toml"
    # shellcheck disable=SC2046 # three numbers
    row "download $n" "$wall_s" $(memory) "$requests"
    budget "$n" download "$fp_kb"
    download_s=$wall_s

    measure "$contactbox" sync --config "$work/contactbox.toml"
    # shellcheck disable=SC2046
    row "no-op $n" "$wall_s" $(memory) "$requests"
    budget "$n" no-op "$fp_kb"
    ((total_requests == 1)) || failures+=("N=$n no-op sync made $total_requests requests, not 1")

    changes=$((n / 100))
    python3 Deploy/bench/seed_radicale.py edit-remote "$book" alice "$work/password" "$changes" "$n"
    python3 Deploy/bench/seed_radicale.py edit-local "$work/local-edits.vcf" "$changes" "$n"
    "$contactbox" import --update --db "$work/store.sqlite" "$work/local-edits.vcf" 2>/dev/null
    measure "$contactbox" sync --config "$work/contactbox.toml"
    # shellcheck disable=SC2046
    row "1% each side $n" "$wall_s" $(memory) "$requests"
    budget "$n" changes "$fp_kb"

    # vdirsyncer: the same server and data, into a folder. Radicale lists the edits above as changes; start
    # vdirsyncer from the same seeded state.
    start_radicale "$n"
    vdirsyncer_run "$book" "$work/vds-$n"
    ratio=$(awk -v a="$download_s" -v b="$wall_s" 'BEGIN { printf "%.2f", a / b }')
    # shellcheck disable=SC2046
    row "vdirsyncer download $n" "$wall_s" $(memory) "ContactBox takes ${ratio}x its time"
done

# Initial upload of 1,000 into an empty book.
start_radicale 0
rm -f "$work"/upload.sqlite*
python3 Deploy/bench/gen_contacts.py 1000 "$work/upload.vcf"
"$contactbox" import --db "$work/upload.sqlite" "$work/upload.vcf" 2>/dev/null
write_config "$work/upload.sqlite"
measure "$contactbox" sync --config "$work/contactbox.toml"
# shellcheck disable=SC2046
row "upload 1000" "$wall_s" $(memory) "$requests"
((fp_kb <= 8 * 1024)) || failures+=("upload 1000: footprint $(mb "$fp_kb") MB > 8 MB")

# A book where every card has a photo (8-40 KB of base64): up, then down into an empty store.
start_radicale 0
rm -f "$work"/photos.sqlite*
python3 Deploy/bench/gen_contacts.py 500 "$work/photos.vcf" --photos 1
"$contactbox" import --db "$work/photos.sqlite" "$work/photos.vcf" 2>/dev/null
write_config "$work/photos.sqlite"
for direction in upload download; do
    [[ $direction == download ]] && rm -f "$work"/photos.sqlite*
    measure "$contactbox" sync --config "$work/contactbox.toml"
    # shellcheck disable=SC2046
    row "$direction 500 with photos" "$wall_s" $(memory) "$requests"
    ((fp_kb <= 8 * 1024)) || failures+=("$direction 500 with photos: footprint $(mb "$fp_kb") MB > 8 MB")
done

echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: footprint <= 8 MB and flat within 1 MB; a no-op sync is one request"
