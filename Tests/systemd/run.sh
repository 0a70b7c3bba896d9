#!/usr/bin/env bash
# The installed box under a real systemd: boots the Debian 12 guest of the VM
# harness (Tests/hardware/gpio-vm/run --guest debian: systemd as PID 1, the Pi 4's
# line names on gpio-sim, user-mode networking), installs the release binaries
# there with Deploy/install.sh --bin as a household would, reboots, and runs
# Tests/systemd/scenario.sh (first boot, sync with LoadCredential=, reload, stop,
# button, failures, journal, upgrade, memory, big photos, setup from the page, a damaged store
# recovered on the command line and on the page, sandbox; then a book of Radicale added from the
# page, a reboot with the clock two years behind, that book again, and no clock at boot) against a
# Radicale on this host (the guest reaches it as 10.0.2.2).
# About 12 min on a busy 2-core machine (TCG), most of it the three boots and
# the syncs (Docs/measurements/systemd.md).
#   Tests/systemd/run.sh [--contacts N] [--memory-contacts N]
# Prints one closing line "systemd-vm: N passed, M failed"; exits 1 on any failure.
# Skipped, saying so, where QEMU cannot run (not x86_64, or not root: debootstrap
# and mkfs.ext4 -d need root).
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() {
    # the comment at the top of this file
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    cat <<'EOF2'

Options:
  --contacts N         contacts in the Radicale address book the scenarios use
                       (default 3000): the box syncs them from Radicale, then
                       into a vdir folder, deletes 40 % of them, and so on.
  --memory-contacts N  contacts in a second address book (default 10000) that a
                       fresh store downloads at the end, under the unit's memory
                       cap, for the memory check (about 2 min of the stage).
                       A third book, of phones' photos (3 contacts with a photo
                       of 1.4 MB, 1.9 MB as base64, and one of 3 MB), is
                       downloaded the same way after it (issue 31).
  -h, --help           this text
Environment: GPIO_VM_RUN names another harness; GPIO_VM_CACHE its cache.
EOF2
}
contacts=3000 memory_contacts=10000
while [[ $# -gt 0 ]]; do
    case $1 in
        --contacts | --memory-contacts)
            [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { usage >&2; exit 64; }
            if [[ $1 == --contacts ]]; then contacts=$2; else memory_contacts=$2; fi
            shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "systemd-vm: unknown option $1" >&2; usage >&2; exit 64 ;;
    esac
    shift
done

if [[ $(uname -m) != x86_64 ]]; then
    echo "systemd-vm: SKIPPED: the VM harness runs on x86_64 hosts only (this is $(uname -m))"
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    echo "systemd-vm: SKIPPED: debootstrap and mkfs.ext4 -d need root to make the guest's disk"
    exit 0
fi
harness=${GPIO_VM_RUN:-Tests/hardware/gpio-vm/run}

# The release binaries, $work, and Radicale on 127.0.0.1 with the address book the box syncs at its first boot
# (Tests/systemd/host-stage.sh); then the larger one of the memory check (written as files too, then read once so
# that Radicale has it cached, as radicale_start does for the first).
# shellcheck source=Tests/systemd/host-stage.sh
source Tests/systemd/host-stage.sh
stage_host systemd-vm "$contacts"
python3 Deploy/bench/seed_radicale.py collection "$work/radicale/storage/collection-root/alice/big" "$memory_contacts"
curl -s -o /dev/null -u "alice:$(cat "$work/radicale/password")" -X PROPFIND -H 'Depth: 1' "${book%contacts/}big/"
# The book of phones' photos (Deploy/bench/photos.sh has the whole one: 32 and 5), and the SHA-256 of each photo's
# bytes by UID (Deploy/bench/photo_digests.sh), which the guest compares with the store's export.
photos_small=3 photos_big=1
python3 Deploy/bench/gen_contacts.py "$photos_small" "$work/photos-small.vcf" --seed 11 --photo-bytes 1400000
python3 Deploy/bench/gen_contacts.py "$photos_big" "$work/photos-big.vcf" --seed 12 --photo-bytes 3000000
python3 Deploy/bench/seed_radicale.py collection "$work/radicale/storage/collection-root/alice/photos" 0
for cards in "$work/photos-small.vcf" "$work/photos-big.vcf"; do
    python3 Deploy/bench/seed_radicale.py split "$cards" "$work/radicale/storage/collection-root/alice/photos"
done
Deploy/bench/photo_digests.sh "$work/photos-small.vcf" "$work/photos-big.vcf" >"$work/photos.digests"
rm -f "$work/photos-small.vcf" "$work/photos-big.vcf"
curl -s -o /dev/null -u "alice:$(cat "$work/radicale/password")" -X PROPFIND -H 'Depth: 1' "${book%contacts/}photos/"
# The book a browser adds from the page at the end (found from Radicale's root URL), small: its first sync and the
# one after the reboot cost seconds.
page_contacts=200
python3 Deploy/bench/seed_radicale.py collection "$work/radicale/storage/collection-root/alice/page" "$page_contacts"
curl -s -o /dev/null -u "alice:$(cat "$work/radicale/password")" -X PROPFIND -H 'Depth: 1' "${book%contacts/}page/"

cat >"$work/stage.env" <<ENV
RADICALE_URL='http://10.0.2.2:$port/alice/contacts/'
RADICALE_PASSWORD='$(cat "$work/radicale/password")'
RADICALE_CONTACTS=$contacts
MEMORY_URL='http://10.0.2.2:$port/alice/big/'
MEMORY_CONTACTS=$memory_contacts
PHOTOS_URL='http://10.0.2.2:$port/alice/photos/'
PHOTOS_CONTACTS=$((photos_small + photos_big))
PAGE_ROOT='http://10.0.2.2:$port/'
PAGE_URL='http://10.0.2.2:$port/alice/page/'
PAGE_CONTACTS=$page_contacts
# bounds under TCG on a 2-core machine (measured: see Tests/hardware/gpio-vm/README.md)
READY_BOUND_S=20
SYNC_BOUND_S=420
ENV

out=$work/out
started=$SECONDS
# --timeout: the three boots together, a guard against a hang (they ran 923 to 1141 s on a busy machine:
# Docs/measurements/systemd.md)
"$harness" --guest debian --timeout 1800 --forward 8080 --host Tests/systemd/host.sh \
    --add "$work/bin:/opt/vm/bin" \
    --add "$src:/opt/contactbox-src" \
    --add "$work/stage.env:/opt/vm/stage.env" \
    --add "Tests/hardware/daemon.sh:/opt/vm/daemon.sh" \
    --add "$work/photos.digests:/opt/vm/photos.digests" \
    --add "Deploy/bench/photo_digests.sh:/opt/vm/photo_digests.sh" \
    Tests/systemd/scenario.sh | tee "$out" || true
echo "systemd-vm: the stage took $((SECONDS - started)) s" >&2
verdict=$(tail -n 1 "$out")
if [[ $verdict =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    echo "systemd-vm: ${BASH_REMATCH[1]} passed, ${BASH_REMATCH[2]} failed"
    [[ ${BASH_REMATCH[2]} -eq 0 ]]
else
    echo "systemd-vm: 0 passed, 1 failed"
    exit 1
fi
