#!/usr/bin/env bash
# Foundation benchmark: time and memory of `contactbox import` and `contactbox export`
# on N generated contacts, each in a fresh store, against the memory budget:
# footprint (peak private memory, Deploy/lib/footprint.py) <= 8 MB at every N and no
# more than 1 MB above the figure at the smallest N. Peak RSS (VmHWM) and PSS are
# printed beside it, without a budget. Exits 1 if a budget fails.
#   BENCH_SIZES="1000 10000" Deploy/bench/foundation.sh    # other sizes
#   SWIFTPM_FLAGS="--scratch-path .build-bench" ...          # other swift build flags
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}"

read -ra spm_flags <<<"${SWIFTPM_FLAGS:-}"
read -ra sizes <<<"${BENCH_SIZES:-1000 10000 50000}"
budget_kb=$((8 * 1024)) growth_kb=1024

# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
release_build "${spm_flags[@]}"
contactbox=$CONTACTBOX_BIN

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh

# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh

failures=()
# check N WHAT RSS_KB: compares one figure with the budgets.
check() {
    local n=$1 what=$2 kb=$3
    ((kb <= budget_kb)) || failures+=("N=$n $what footprint $(mb "$kb") MB > 8 MB")
    [[ -z ${base[$what]:-} ]] && base[$what]=$kb
    ((kb - base[$what] <= growth_kb)) ||
        failures+=("N=$n $what footprint $(mb "$kb") MB is more than 1 MB above N=${sizes[0]} ($(mb "${base[$what]}") MB)")
}
declare -A base

row() { printf '%-8s %8s %8s %13s %12s %8s\n' "$@"; }
row run N "wall s" "footprint MB" "peak RSS MB" "PSS MB"
for n in "${sizes[@]}"; do
    python3 Deploy/bench/gen_contacts.py "$n" "$work/contacts.vcf"
    rm -f "$work"/bench.sqlite* "$work/export.vcf"
    footprint_named import "$contactbox" import --db "$work/bench.sqlite" "$work/contacts.vcf"
    row import "$n" "$wall_s" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" "$(mb "$pss_kb")"
    check "$n" import "$fp_kb"
    footprint_named export "$contactbox" export --db "$work/bench.sqlite" --out "$work/export.vcf"
    row export "$n" "$wall_s" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" "$(mb "$pss_kb")"
    check "$n" export "$fp_kb"
done

echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: footprint <= 8 MB at every N, and within 1 MB of N=${sizes[0]}"
