#!/usr/bin/env bash
# The host's side of Tests/systemd/scenario.sh: run by the harness when the
# guest calls `on_host NAME`; prints PASS:/FAIL: lines, exit status 0 if all passed.
#   host.sh status-page   the status page through QEMU's forward of guest port 8080
set -euo pipefail
case ${1:-} in
status-page)
    port=${GPIO_VM_PORT_8080:?run by the harness with --forward 8080}
    # QEMU accepts on the forwarded port even before the guest answers: wait for a
    # real HTTP answer, with short timeouts, until the deadline.
    deadline=$((SECONDS + 40))
    while :; do
        # The name a household's browser sends (Avahi: contactbox.local).
        if page=$(curl -s --max-time 3 -H 'Host: contactbox.local:8080' "http://127.0.0.1:$port/") &&
            grep -q 'ContactBox' <<<"$page"; then
            echo "PASS: host: the status page answers on 127.0.0.1:$port (guest port 8080)"
            exit 0
        fi
        if ((SECONDS >= deadline)); then
            echo "FAIL: host: no status page on 127.0.0.1:$port within 40 s"
            exit 1
        fi
        sleep 0.5
    done
    ;;
*)
    echo "FAIL: host: unknown request '${1:-}'"
    exit 2
    ;;
esac
