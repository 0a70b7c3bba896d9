#!/usr/bin/env bash
# Foundation benchmark: time and peak memory of `contactbox import` and
# `contactbox export` on N generated contacts, each in a fresh store, against the
# memory budget: peak RSS <= 16 MB (at 50,000 and so at every N), and no more
# than 1 MB above the figure at the smallest N. Exits 1 if a budget fails.
#   BENCH_SIZES="1000 10000" Deploy/bench/foundation.sh    # other sizes
#   SWIFTPM_FLAGS="--scratch-path .build-bench" ...          # other swift build flags
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}"
[[ -x /usr/bin/time ]] || apt_ensure time   # GNU time, for -v; not the shell keyword

read -ra spm_flags <<<"${SWIFTPM_FLAGS:-}"
read -ra sizes <<<"${BENCH_SIZES:-1000 10000 50000}"
budget_kb=$((16 * 1024)) growth_kb=1024

# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
release_build "${spm_flags[@]}"
contactbox=$CONTACTBOX_BIN

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# measure NAME CMD...: runs CMD under GNU time; sets wall_s and rss_kb. A failing
# CMD stops the benchmark, showing its stderr.
measure() {
    local name=$1
    shift
    if ! /usr/bin/time -v -o "$work/$name.time" "$@" >/dev/null 2>"$work/$name.err"; then
        echo "$name failed:" >&2
        cat "$work/$name.err" "$work/$name.time" >&2
        exit 1
    fi
    # "Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02.34" -> seconds
    wall_s=$(awk -F': ' '/Elapsed \(wall clock\)/ {
        n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.2f", s }' "$work/$name.time")
    rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/$name.time")
}

mb() { awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'; }

failures=()
# check N WHAT RSS_KB: compares one figure with the budgets.
check() {
    local n=$1 what=$2 kb=$3
    ((kb <= budget_kb)) || failures+=("N=$n $what peak RSS $(mb "$kb") MB > 16 MB")
    [[ -z ${base[$what]:-} ]] && base[$what]=$kb
    ((kb - base[$what] <= growth_kb)) ||
        failures+=("N=$n $what peak RSS $(mb "$kb") MB is more than 1 MB above N=${sizes[0]} ($(mb "${base[$what]}") MB)")
}
declare -A base

printf '%8s  %12s  %14s  %12s  %14s\n' N "import s" "import RSS MB" "export s" "export RSS MB"
for n in "${sizes[@]}"; do
    python3 Deploy/bench/gen_contacts.py "$n" "$work/contacts.vcf"
    rm -f "$work"/bench.sqlite* "$work/export.vcf"
    measure import "$contactbox" import --db "$work/bench.sqlite" "$work/contacts.vcf"
    import_s=$wall_s import_kb=$rss_kb
    measure export "$contactbox" export --db "$work/bench.sqlite" --out "$work/export.vcf"
    printf '%8s  %12s  %14s  %12s  %14s\n' "$n" "$import_s" "$(mb "$import_kb")" "$wall_s" "$(mb "$rss_kb")"
    check "$n" import "$import_kb"
    check "$n" export "$rss_kb"
done

echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: peak RSS <= 16 MB at every N, and within 1 MB of N=${sizes[0]}"
