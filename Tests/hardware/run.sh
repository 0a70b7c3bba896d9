#!/usr/bin/env bash
# The hardware scenarios: each Tests/hardware/*.sh (but this file and daemon.sh) boots the VM of
# Tests/hardware/gpio-vm (a kernel GPIO chip simulated like a Raspberry Pi 4's header, libgpiod 1.6) and runs the
# release binaries there with the real libgpiod backend and Board/raspberry-pi-4.toml.
#   Tests/hardware/run.sh [SCENARIO.sh ...]
# The harness is Tests/hardware/gpio-vm/run (GPIO_VM_RUN names another). Prints one closing line
# "hardware: N passed, M failed" and exits 1 on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

harness=${GPIO_VM_RUN:-Tests/hardware/gpio-vm/run}
if [[ ! -x $harness ]]; then
    echo "hardware: the gpio-vm harness is missing at $harness" >&2
    echo "hardware: 0 passed, 1 failed"
    exit 1
fi

# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
echo "hardware: building the release binaries ..." >&2
release_build
bin=$(dirname "$CONTACTBOX_BIN")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 400 contacts for the ordinary scenarios; 3,000 for a sync long enough to be stopped in the middle.
python3 Deploy/bench/gen_contacts.py 400 "$work/contacts.vcf" >/dev/null
python3 Deploy/bench/gen_contacts.py 3000 "$work/many-contacts.vcf" >/dev/null

scenarios=("$@")
if [[ ${#scenarios[@]} -eq 0 ]]; then
    for file in Tests/hardware/*.sh; do
        case $(basename "$file") in run.sh | daemon.sh) ;; *) scenarios+=("$file") ;; esac
    done
fi

passed=0 failed=0
for scenario in "${scenarios[@]}"; do
    echo "== hardware scenario $(basename "$scenario")"
    out="$work/out"
    # curl for the scenarios that post to the status page as a browser would (undo-page.sh); the harness brings
    # its libraries along.
    extra=()
    if curl=$(command -v curl); then extra=(--add "$curl:/usr/local/bin/curl"); fi
    "$harness" --timeout 240 "${extra[@]}" \
        --add "$bin/contactbox:/usr/local/bin/contactbox" \
        --add "$bin/contactbox-remote:/usr/local/bin/contactbox-remote" \
        --add "Board:/usr/share/contactbox/boards" \
        --add "Tests/hardware/daemon.sh:/opt/vm/daemon.sh" \
        --add "$work/contacts.vcf:/opt/vm/contacts.vcf" \
        --add "$work/many-contacts.vcf:/opt/vm/many-contacts.vcf" \
        "$scenario" | tee "$out" || true
    verdict=$(tail -n 1 "$out")
    if [[ $verdict =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
    else
        failed=$((failed + 1))
    fi
done
echo "hardware: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
