#!/usr/bin/env bash
# The host's side of Tests/systemd/power-cuts-scenario.sh: run by the harness when the guest calls `on_host NAME`.
#   ready-I-MS        the guest's service became READY MS ms ago, after cut I: appends "I SECONDS" (from QEMU's
#                     start, GPIO_VM_POWER_ON, to READY) to $POWER_CUTS_OUT/ready
#   edit-remote-I     100 of the seeded contacts changed on Radicale (over HTTP, as a phone would), for cut I
# Environment from Tests/systemd/power-cuts.sh: POWER_CUTS_OUT, POWER_CUTS_BOOK, POWER_CUTS_PASSWORD_FILE,
# POWER_CUTS_CONTACTS.
set -euo pipefail
cd "$(dirname "$0")/../.."
case ${1:-} in
ready-*-*)
    IFS=- read -r _ cut since <<<"$1"
    secs=$(awk -v on="${GPIO_VM_POWER_ON:?}" -v now="$(date +%s.%N)" -v ms="$since" \
        'BEGIN { printf "%.1f", now - on - ms / 1000 }')
    echo "$cut $secs" >>"$POWER_CUTS_OUT/ready"
    echo "power-cuts: cut $cut: READY $secs s after the power came back"
    ;;
edit-remote-*)
    cut=${1#edit-remote-}
    if python3 Deploy/bench/seed_radicale.py edit-remote "$POWER_CUTS_BOOK" alice "$POWER_CUTS_PASSWORD_FILE" \
        $((POWER_CUTS_CONTACTS / 100)) "$POWER_CUTS_CONTACTS" "remote-$cut"; then
        echo "PASS: host: 1 % of the remote's contacts changed for cut $cut"
    else
        echo "FAIL: host: 1 % of the remote's contacts changed for cut $cut"
        exit 1
    fi
    ;;
*)
    echo "FAIL: host: unknown request '${1:-}'"
    exit 2
    ;;
esac
