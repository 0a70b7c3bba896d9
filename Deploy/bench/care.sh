#!/usr/bin/env bash
# The store's care at 50,000 contacts (issue 36, a failing SD card): what the box does at its start and once a
# day, through the release binary in a memory cgroup with a hard 20 MB limit (Deploy/lib/memcap.sh), the page cache
# dropped before each step (a box that has just booted):
#   1. `contactbox check --quick`: SQLite's quick check, which the daemon runs at its start, before its first pass;
#   2. `contactbox copy`: the day's safety copy (online backup, 100 pages a step, then the copy's quick check);
#   3. `contactbox copy` again with nothing changed: no copy, nothing written;
#   4. a page of the store overwritten with garbage: `check --quick` finds it, `copy` refuses to copy it (exit 1),
#      and `contactbox recover` puts the copy back, sound, every contact there.
# The book: Deploy/bench/gen_contacts.py --seed 35 --photos 0.1 --photo-size 20000-50000 (as contacts.sh), imported.
# Budgets (exit 1 if one fails): the quick check within BENCH_CHECK_S (10) s; the copy within BENCH_COPY_S (60) s;
# each step's footprint <= 8 MB; nothing killed in the cgroup; the damage found and recovered.
#   Deploy/bench/care.sh                  (BENCH_CONTACTS, default 50000)
#   Deploy/test.sh: BENCH_CONTACTS=500
set -euo pipefail
cd "$(dirname "$0")/../.."

contacts=${BENCH_CONTACTS:-50000}
check_budget_s=${BENCH_CHECK_S:-10}
copy_budget_s=${BENCH_COPY_S:-60}
footprint_budget_kb=$((8 * 1024))
cap_kb=$((20 * 1024))
read -ra spm_flags <<<"${SWIFTPM_FLAGS:-}"
if [[ -z ${CONTACTBOX_BIN:-} ]]; then
    # shellcheck source=Deploy/lib/release-build.sh
    source Deploy/lib/release-build.sh
    release_build "${spm_flags[@]}"
fi
contactbox=$CONTACTBOX_BIN

# shellcheck source=Deploy/lib/bench-work.sh
source Deploy/lib/bench-work.sh
# shellcheck source=Deploy/lib/memcap.sh
source Deploy/lib/memcap.sh
bench_on_exit+=(memcap_remove)
# shellcheck source=Deploy/lib/footprint.sh
source Deploy/lib/footprint.sh

db=$work/contacts.sqlite
python3 Deploy/bench/gen_contacts.py "$contacts" "$work/book.vcf" --seed 35 --photos 0.1 --photo-size 20000-50000 \
    --copies 0 >&2
"$contactbox" import --db "$db" "$work/book.vcf" >&2
rm -f "$work/book.vcf"
store_mb=$(($(stat -c %s "$db") / 1000000))

memcap_detect
failures=()
fail() { failures+=("$1"); }
# step NAME BUDGET_S CMD...: CMD in a fresh capped group, the page cache dropped; prints its line; sets step_status
step() {
    local name=$1 budget_s=$2
    shift 2
    local prefix=()
    memcap_remove
    if [[ -n $memcap_kind ]]; then
        memcap_make "care-$RANDOM" "$cap_kb"
        prefix=("${memcap_prefix[@]}")
    fi
    memcap_drop_caches
    step_status=0
    footprint_run "$work/step.fp" "${prefix[@]}" "$@" >"$work/step.out" 2>"$work/step.err" || step_status=$?
    local oom=0
    if [[ -n $memcap_dir ]]; then
        memcap_events
        oom=$memcap_oom_kills
    fi
    printf '%-58s %8s s %9s MB %10s MB  exit %s\n' "$name" "$wall_s" "$(mb "$fp_kb")" "$(mb "$hwm_kb")" "$step_status"
    ((fp_kb <= footprint_budget_kb)) || fail "$name: footprint $(mb "$fp_kb") MB > 8 MB"
    ((oom == 0)) || fail "$name: $oom processes killed in the cgroup"
    if [[ $budget_s != - ]] && awk -v t="$wall_s" -v b="$budget_s" 'BEGIN { exit !(t > b) }'; then
        fail "$name: $wall_s s > $budget_s s"
    fi
}

echo "machine: $(nproc) cores, load $(cut -d ' ' -f 1-3 /proc/loadavg); commit $(git rev-parse --short HEAD)"
echo "store: $contacts contacts, $store_mb MB; cgroup: ${memcap_kind:-none ($memcap_why)}, 20 MB; page cache: dropped before each step"
printf '%-58s %10s %12s %13s\n' step wall footprint "peak RSS"
step "1. check --quick (the start's check)" "$check_budget_s" "$contactbox" check --quick --db "$db"
((step_status == 0)) || fail "check --quick found problems in a sound store: $(cat "$work/step.err")"
step "2. copy (the day's safety copy)" "$copy_budget_s" "$contactbox" copy --db "$db"
if ((step_status != 0)) || ! grep -q '^Copied ' "$work/step.err"; then fail "copy made no copy: $(cat "$work/step.err")"; fi
copy_mb=$(($(stat -c %s "$work/copies/newest.sqlite") / 1000000))
made=$(stat -c %Y "$work/copies/newest.sqlite")
step "3. copy again, nothing changed" - "$contactbox" copy --db "$db"
[[ $(stat -c %Y "$work/copies/newest.sqlite") == "$made" && ! -e $work/copies/older.sqlite ]] ||
    fail "a second copy was made of an unchanged store"

# 4. damage: a page in the middle of the contacts table, as a failing card returns it
python3 - "$db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
page_size = db.execute("PRAGMA page_size").fetchone()[0]
# a leaf of the contacts table, found by its first row's place
page = db.execute("SELECT pageno FROM dbstat WHERE name = 'contacts' AND pagetype = 'leaf' LIMIT 1 OFFSET 100").fetchone()
page = page[0] if page else db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'contacts'").fetchone()[0]
db.close()
with open(sys.argv[1], "r+b") as f:
    f.seek((page - 1) * page_size)
    f.write(b"\xa5" * page_size)
PY
step "4. check --quick of the damaged store" "$check_budget_s" "$contactbox" check --quick --db "$db"
((step_status == 1)) || fail "check --quick did not find the damage (exit $step_status)"
step "   copy of the damaged store (refused)" - "$contactbox" copy --db "$db"
((step_status == 1)) || fail "the damaged store was copied (exit $step_status)"
step "   recover" - "$contactbox" recover --db "$db"
((step_status == 0)) || fail "recover failed: $(cat "$work/step.err")"
step "   check --quick after recover" "$check_budget_s" "$contactbox" check --quick --db "$db"
((step_status == 0)) || fail "the recovered store is not sound"
count=$("$contactbox" list --db "$db" | wc -l)
((count == contacts)) || fail "the recovered store lists $count contacts of $contacts"
memcap_remove

echo "copy: $copy_mb MB of a $store_mb MB store; the recovered store lists $count contacts"
if ((${#failures[@]})); then
    printf 'FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "budget ok: quick check <= $check_budget_s s, copy <= $copy_budget_s s, footprint <= 8 MB in a 20 MB cgroup, nothing killed; the damage found, not copied, recovered"
