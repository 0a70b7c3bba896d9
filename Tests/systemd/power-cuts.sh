#!/usr/bin/env bash
# Power cuts (issue 36): the installed box in the Debian 12 guest of the VM harness (Tests/hardware/gpio-vm/run
# --guest debian, systemd as PID 1), its disk served by lossy-nbd.py (--lossy-disk: a disk with a volatile write
# cache, whose writes reach the image only at the guest's flushes; at a cut each unflushed 4 KiB block is written
# or lost at random), and the power cut - QEMU killed, no shutdown - at random moments of: a first download of the
# book, an upload, a sync with 1 % changed on each side, an undo, history pruning, a schema migration and a settings
# save on the page (Tests/systemd/power-cuts-scenario.sh). After each cut the box boots again and is checked: READY,
# idle or a state its page explains, `contactbox check`, a sync that ends ok, the store and Radicale's book the
# same card by card, each expected contact once, the runs recorded before still listed.
# Prints the table (the cut's moment, the time from power on to READY, the outcome); exits 1 on any failure.
# About 3 to 5 min a cut on a busy 2-core machine (TCG): a boot, the operation, the checks.
#   Tests/systemd/power-cuts.sh [--cuts N] [--seed S] [--contacts N] [--short]
# Skipped, saying so, where QEMU cannot run (not x86_64, or not root).
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    cat <<'EOF2'

Options:
  --cuts N      cuts (default 30), the operations in turn: download upload sync undo prune migration settings
  --seed S      seeds the moments and the lossy disk's choices (default: random, printed: give it again to repeat
                a run's moments)
  --contacts N  contacts in the Radicale book (default 10000)
  --short       the short form of Deploy/test.sh: 1 cut, in a first download or a sync (the seed chooses), 2000
                contacts
  -h, --help    this text
Environment: GPIO_VM_RUN names another harness; GPIO_VM_CACHE its cache.
EOF2
}
cuts=30 seed=$((RANDOM * 32768 + RANDOM)) contacts=10000 short=0
while [[ $# -gt 0 ]]; do
    case $1 in
        --cuts | --seed | --contacts)
            [[ ${2:-} =~ ^[0-9]+$ ]] || { usage >&2; exit 64; }
            case $1 in --cuts) cuts=$2 ;; --seed) seed=$2 ;; --contacts) contacts=$2 ;; esac
            shift ;;
        --short) short=1 cuts=1 contacts=2000 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "power-cuts: unknown option $1" >&2; usage >&2; exit 64 ;;
    esac
    shift
done
[[ $cuts -ge 1 && $contacts -ge 200 ]] || { usage >&2; exit 64; }

if [[ $(uname -m) != x86_64 ]]; then
    echo "power-cuts: SKIPPED: the VM harness runs on x86_64 hosts only (this is $(uname -m))"
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    echo "power-cuts: SKIPPED: debootstrap and mkfs.ext4 -d need root to make the guest's disk"
    exit 0
fi
harness=${GPIO_VM_RUN:-Tests/hardware/gpio-vm/run}

# The moments: each operation's cut at a random moment within the span it takes under TCG on a busy 2-core machine
# (from its start: the service's start, or the command's), so that most cuts land inside it; "power-cuts: ended"
# lines say when one ended first.
declare -A span=([download]=$((contacts * 12)) [upload]=$((4000 + contacts * 2)) [sync]=$((4000 + contacts * 2)) [undo]=3000 [prune]=3000
    [migration]=$((contacts * 2)) [settings]=1500)
ops=(download upload sync undo prune migration settings)
[[ $short -eq 0 ]] || ops=(download sync)
RANDOM=$seed
plan=()
for ((i = 0; i < cuts; i++)); do
    op=${ops[(i + short * seed) % ${#ops[@]}]}
    plan+=("$op:$(((RANDOM * 32768 + RANDOM) % ${span[$op]}))")
done
echo "power-cuts: $cuts cuts, seed $seed (--seed $seed repeats these moments), $contacts contacts" >&2

# The release binaries, $work, Radicale with the book, install.sh's files ($src, $bin): Tests/systemd/host-stage.sh
# shellcheck source=Tests/systemd/host-stage.sh
source Tests/systemd/host-stage.sh
stage_host power-cuts "$contacts"
find "$work/radicale/storage/collection-root/alice/contacts" -maxdepth 1 -name '*.vcf' -printf '%f\n' | sed 's/\.vcf$//' \
    >"$work/expected.uids"

# sqlite3 (the old schema) and the cards each upload adds.
mkdir -p "$work/vm/lib"
cp /usr/bin/sqlite3 "$work/vm/"
cp "$(ldd /usr/bin/sqlite3 | awk '$1 ~ /^libreadline/ { print $3 }')" "$work/vm/lib/libreadline.so.8"
for ((i = 0; i < cuts; i++)); do
    if [[ ${plan[i]%%:*} == upload ]]; then
        python3 Deploy/bench/gen_contacts.py $((contacts / 100)) "$work/vm/upload-$i.vcf" --seed $((1000 + i)) \
            --copies 0 >/dev/null
    fi
done
cat >"$work/vm/stage.env" <<ENV
RADICALE_URL='http://10.0.2.2:$port/alice/contacts/'
RADICALE_PASSWORD='$(cat "$work/radicale/password")'
CUT_PLAN='${plan[*]}'
SYNC_BOUND_S=600
ENV
cp "$work/expected.uids" "$work/vm/"

export POWER_CUTS_OUT=$work POWER_CUTS_BOOK=$book POWER_CUTS_PASSWORD_FILE=$work/radicale/password
export POWER_CUTS_CONTACTS=$contacts
: >"$work/ready"
out=$work/out
started=$SECONDS
"$harness" --guest debian --timeout $((900 + cuts * 480)) --max-boots $((cuts + 2)) --lossy-disk "$seed" \
    --forward 8080 --host Tests/systemd/power-cuts-host.sh \
    --add "$work/bin:/opt/vm/bin" \
    --add "$src:/opt/contactbox-src" \
    --add "$work/vm:/opt/vm/pc" \
    --add "Tests/hardware/daemon.sh:/opt/vm/daemon.sh" \
    Tests/systemd/power-cuts-scenario.sh | tee "$out" || true
echo "power-cuts: the run took $((SECONDS - started)) s" >&2

# The table: one row a cut
failed=0
printf '\n%-4s %-10s %10s %12s %8s  %s\n' cut operation "cut at ms" "op ended ms" "READY s" outcome
for ((i = 0; i < cuts; i++)); do
    op=${plan[i]%%:*} ms=${plan[i]#*:}
    ended=$(sed -n "s/^power-cuts: ended $i \([0-9]*\)$/\1/p" "$out" | tail -n 1)
    ready=$(awk -v i="$i" '$1 == i { r = $2 } END { print r }' "$work/ready")
    outcome=$(sed -n "s/^power-cuts: row $i [a-z]* [0-9]* \(.*\)$/\1/p" "$out" | tail -n 1)
    [[ $outcome == ok ]] || failed=1
    printf '%-4s %-10s %10s %12s %8s  %s\n' "$i" "$op" "$ms" "${ended:--}" "${ready:--}" "${outcome:-not checked}"
done
verdict=$(tail -n 1 "$out")
echo "(cut at: ms after the operation started, as the host counts from the guest's word; op ended: when it ended" \
    "before the cut, else -; READY: from QEMU's start to the service's READY=1)"
if [[ $verdict =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    echo "power-cuts: $cuts cuts (seed $seed), ${BASH_REMATCH[1]} passed, ${BASH_REMATCH[2]} failed"
    [[ ${BASH_REMATCH[2]} -eq 0 && $failed -eq 0 ]]
else
    echo "power-cuts: $cuts cuts (seed $seed), 0 passed, 1 failed"
    exit 1
fi
