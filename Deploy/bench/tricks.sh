#!/usr/bin/env bash
# Memory tricks, each measured on and off with the footprint (Docs/memory.md, "The tricks"): the release build as
# shipped against the same build with one trick turned off.
#   gnutls     GNUTLS_NO_IMPLICIT_INIT=1, which stopped GnuTLS (loaded by Debian's libcurl through librtmp) from
#              initialising itself at load; dropped (it saved nothing measurable, Docs/memory.md), so this row turns
#              it *on* through the environment, as the re-exec that set it and the unit's Environment= did
#   malloc     fixed mmap and trim thresholds, one malloc arena, malloc_trim after each pass (MemoryTuning.swift,
#              Sources/Appliance/SyncWorker.swift); off: Deploy/bench/tricks_off.c makes mallopt and malloc_trim no-ops
#   listingcache  PRAGMA listing.cache_size = -256 (Sources/ContactStore/ContactStore+SyncState.swift); off: tricks_off.c
#              leaves it out (SQLite's default, 2 MB)
#   osize      -Osize (Deploy/lib/release-build.sh); off: a build with -O (scratch path .build-bench-O)
#   relr       DT_RELR, -z pack-relative-relocs (release-build.sh); off: a build without it (.build-bench-norelr)
# Runs, on BENCH_CONTACTS (3,000) contacts: `contactbox-remote sync` downloading them from Radicale; `contactbox
# import` of them; the daemon through a start-up sync of them (peak), then 3 s idle (now). Each variant runs
# BENCH_REPEAT (3) times, alternating; the table shows the median footprint and RSS and, for the build as shipped,
# the spread (max - min) over its runs: a trick that moves the footprint by less than that is noise.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}" python3-venv curl gcc
# shellcheck source=Deploy/lib/venv.sh
source Deploy/lib/venv.sh
ensure_venv
# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
contacts=${BENCH_CONTACTS:-3000}
repeat=${BENCH_REPEAT:-3}

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh

declare -A bin
# shellcheck disable=SC2119 # no extra swift build flags
release_build
bin[shipped]=$(dirname "$CONTACTBOX_BIN")
shipped_flags=("${RELEASE_FLAGS[@]}")
RELEASE_FLAGS=()
for flag in "${shipped_flags[@]}"; do [[ $flag == -Osize ]] && flag=-O; RELEASE_FLAGS+=("$flag"); done
release_build --scratch-path .build-bench-O
bin[osize]=$(dirname "$CONTACTBOX_BIN")
RELEASE_FLAGS=(-c release --static-swift-stdlib -Xswiftc -Osize -Xswiftc -use-ld=lld)
release_build --scratch-path .build-bench-norelr
bin[relr]=$(dirname "$CONTACTBOX_BIN")
RELEASE_FLAGS=("${shipped_flags[@]}")
for trick in malloc listingcache; do
    bin[$trick]=${bin[shipped]}
done
bin[gnutls]=${bin[shipped]}
gcc -shared -fPIC -O2 -DMALLOC_DEFAULTS -o "$work/malloc.so" Deploy/bench/tricks_off.c -ldl
gcc -shared -fPIC -O2 -DLISTING_CACHE_DEFAULT -o "$work/listingcache.so" Deploy/bench/tricks_off.c -ldl
variant_env() { # variant_env VARIANT: the environment that turns its trick off
    case $1 in
        gnutls) echo GNUTLS_NO_IMPLICIT_INIT=1 ;;
        malloc | listingcache) echo "LD_PRELOAD=$work/$1.so" ;;
        *) echo CONTACTBOX_BENCH=1 ;; # nothing to change
    esac
}
sync

# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh
# shellcheck source=Deploy/lib/bench-radicale.sh
source Deploy/lib/bench-radicale.sh
# shellcheck source=Deploy/lib/bench-daemon.sh
source Deploy/lib/bench-daemon.sh
radicale_configure "$work"
radicale_start "$contacts"
python3 Deploy/bench/gen_contacts.py "$contacts" "$work/contacts.vcf"

variants=(shipped gnutls malloc listingcache osize relr)
declare -A results
for r in $(seq "$repeat"); do
    for v in "${variants[@]}"; do
        read -r setting < <(variant_env "$v")
        dir="$work/$v-$r"
        mkdir -p "$dir"
        printf 'store = "%s"\n%s' "$dir/sync.sqlite" "$(carddav_remote)" >"$dir/contactbox.toml"
        footprint_run "$dir/sync.fp" env -u GNUTLS_NO_IMPLICIT_INIT "$setting" "${bin[$v]}/contactbox-remote" sync \
            --config "$dir/contactbox.toml" >/dev/null 2>"$dir/sync.err" || { cat "$dir/sync.err" >&2 && exit 1; }
        results[$v,sync,$r]="$fp_kb $hwm_kb"
        footprint_run "$dir/import.fp" env "$setting" "${bin[$v]}/contactbox" import --db "$dir/import.sqlite" \
            "$work/contacts.vcf" >/dev/null 2>"$dir/import.err" || { cat "$dir/import.err" >&2 && exit 1; }
        results[$v,import,$r]="$fp_kb $hwm_kb"
        contactbox="${bin[$v]}/contactbox-remote"
        daemon_start "$v-$r/daemon" 1h "$(carddav_remote)" env -u GNUTLS_NO_IMPLICIT_INIT "$setting"
        footprint_watch "$pid" "$dir/daemon.fp"
        daemon_wait_runs 1 1200
        sleep 3
        footprint_now "$pid"
        idle_kb=$fp_kb idle_rss=$rss_kb
        footprint_stop "$dir/daemon.fp"
        daemon_stop
        results[$v,daemon,$r]="$fp_kb $hwm_kb"
        results[$v,idle,$r]="$idle_kb $idle_rss"
    done
done

# median FIELD V RUN: the median over the repeats of field 1 (footprint) or 2 (RSS); spread: max - min.
values() { for r in $(seq "$repeat"); do echo "${results[$2,$3,$r]}" | cut -d' ' -f"$1"; done | sort -n; }
median() { values "$@" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
spread() { values "$@" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print hi - lo }'; }
printf '%-10s' "variant"
for run in sync import daemon idle; do printf ' %16s %14s' "$run fp KB" "$run RSS KB"; done
echo
for v in "${variants[@]}"; do
    printf '%-10s' "$v"
    for run in sync import daemon idle; do
        printf ' %16s %14s' "$(median 1 "$v" "$run")" "$(median 2 "$v" "$run")"
    done
    echo
done
printf '%-10s' "spread"
for run in sync import daemon idle; do printf ' %16s %14s' "$(spread 1 shipped "$run")" "$(spread 2 shipped "$run")"; done
echo
echo "(shipped: the release build as it is; other rows: that trick off, gnutls: the dropped trick on; $contacts contacts,"
echo " median of $repeat runs;"
echo " spread: max - min of the shipped build's runs)"
