#!/usr/bin/env bash
# Regression check: the release build of another commit (BASE) against this tree's (or commit NEW's), in one run
# on the same machine, alternating, so that what loads the machine loads both alike. For each N: `import` of N
# generated contacts into an empty store, `export` of it, a `sync` downloading N from Radicale into an empty store,
# and a no-op `sync` after it. Prints, per build, the median wall time and the median CPU time (user + system, from
# wait4: the figure another process's load hardly moves) of BENCH_REPEAT runs, with their spread (max - min, the
# noise), and the largest footprint. Budget (exit 1 if it fails): the new build's median CPU is at most 10% (and
# 0.05 s) above BASE's, and its footprint at most 256 KB above, for every step. Wall times are printed, not
# budgeted: Radicale's own time is most of a sync's.
#   Deploy/bench/compare.sh BASE                      # e.g. a commit before a refactor, against this tree
#   Deploy/bench/compare.sh BASE NEW                  # two commits
#   BENCH_SIZES="1000 10000" BENCH_REPEAT=3 ...       # the defaults
# A commit is built once in a worktree under ${XDG_CACHE_HOME:-~/.cache}/contactbox-bench/, kept for the next run.
set -euo pipefail
cd "$(dirname "$0")/../.."
if (($# < 1 || $# > 2)); then
    sed -n '2,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 64
fi
base_rev=$(git rev-parse --verify "$1^{commit}") || exit 64
new_rev=
if (($# == 2)); then new_rev=$(git rev-parse --verify "$2^{commit}") || exit 64; fi

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}" python3-venv
# shellcheck source=Deploy/lib/venv.sh
source Deploy/lib/venv.sh
ensure_venv
read -ra sizes <<<"${BENCH_SIZES:-1000 10000}"
repeat=${BENCH_REPEAT:-3}

# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
# built REV: the release binary of commit REV, built in its cached worktree.
built() {
    local tree="${XDG_CACHE_HOME:-$HOME/.cache}/contactbox-bench/$1"
    if [[ ! -d $tree ]]; then
        mkdir -p "$(dirname "$tree")"
        git worktree add --detach "$tree" "$1" >&2
    fi
    # shellcheck disable=SC2119 # no extra swift build flags
    (cd "$tree" && release_build && echo "$CONTACTBOX_BIN")
}
declare -A bin=([base]=$(built "$base_rev"))
if [[ -n $new_rev ]]; then
    bin[head]=$(built "$new_rev")
else
    # shellcheck disable=SC2119
    release_build
    bin[head]=$CONTACTBOX_BIN
fi

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh
# shellcheck source=Deploy/lib/bench-daemon.sh
source Deploy/lib/bench-daemon.sh
radicale_configure "$work"

# step BUILD NAME CMD...: runs CMD sampled and keeps its wall, CPU and footprint under BUILD/NAME.
declare -A walls cpus fps
step() {
    local build=$1 name=$2
    shift 2
    if ! footprint_run "$work/fp" "$@" >"$work/out" 2>"$work/err"; then
        echo "$build: failed: $*" >&2 && tail -20 "$work/err" >&2 && exit 1
    fi
    walls[$build/$name]+="$wall_s " cpus[$build/$name]+="$cpu_s "
    ((fp_kb > ${fps[$build/$name]:-0})) && fps[$build/$name]=$fp_kb
    return 0
}
# median and spread of a list of numbers: "MEDIAN SPREAD"
stats() {
    tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g |
        awk '{ v[NR] = $1 } END { printf "%.2f %.2f", v[int((NR + 1) / 2)], v[NR] - v[1] }'
}

echo "base $(git log -1 --format='%h %s' "$base_rev" | cut -c1-80)"
if [[ -n $new_rev ]]; then
    echo "head $(git log -1 --format='%h %s' "$new_rev" | cut -c1-80)"
else
    echo "head $(git log -1 --format='%h' HEAD)$(git diff --quiet HEAD || echo ' with uncommitted changes')"
fi
failures=()
for n in "${sizes[@]}"; do
    python3 Deploy/bench/gen_contacts.py "$n" "$work/contacts.vcf"
    radicale_start "$n"
    names=(import export download no-op)
    for ((r = 1; r <= repeat; r++)); do
        order=(base head)
        ((r % 2 == 0)) && order=(head base)
        for build in "${order[@]}"; do
            rm -f "$work"/store.sqlite*
            step "$build" import "${bin[$build]}" import --db "$work/store.sqlite" "$work/contacts.vcf"
            step "$build" export "${bin[$build]}" export --db "$work/store.sqlite" --out "$work/export.vcf"
            rm -f "$work"/store.sqlite*
            printf 'store = "%s"\n%s' "$work/store.sqlite" "$(carddav_remote)" >"$work/contactbox.toml"
            step "$build" download "${bin[$build]}" sync --config "$work/contactbox.toml"
            step "$build" no-op "${bin[$build]}" sync --config "$work/contactbox.toml"
        done
    done
    echo
    printf '%-16s %15s %15s %15s %15s %9s %9s\n' "N=$n" "base wall s" "head wall s" "base CPU s" "head CPU s" \
        "base MB" "head MB"
    for name in "${names[@]}"; do
        read -r bw bws <<<"$(stats "${walls[base/$name]}")"
        read -r hw hws <<<"$(stats "${walls[head/$name]}")"
        read -r bc bcs <<<"$(stats "${cpus[base/$name]}")"
        read -r hc hcs <<<"$(stats "${cpus[head/$name]}")"
        bf=${fps[base/$name]} hf=${fps[head/$name]}
        printf '%-16s %15s %15s %15s %15s %9s %9s\n' "$name" "$bw ±$bws" "$hw ±$hws" "$bc ±$bcs" "$hc ±$hcs" \
            "$(mb "$bf")" "$(mb "$hf")"
        awk -v b="$bc" -v h="$hc" 'BEGIN { exit !(h <= b * 1.10 + 0.05) }' ||
            failures+=("N=$n $name: CPU $hc s against $bc s, over 10% more")
        ((hf - bf <= 256)) || failures+=("N=$n $name: footprint $(mb "$hf") MB against $(mb "$bf") MB")
    done
    unset walls cpus fps
    declare -A walls cpus fps
done

echo
if ((${#failures[@]})); then
    printf 'budget FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: no step takes more than 10% more CPU or 256 KB more footprint than at the base"
