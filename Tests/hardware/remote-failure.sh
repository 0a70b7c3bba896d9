# A remote that fails lights the error pattern (2 flashes: unreachable), and /api/status says why.
. /opt/vm/daemon.sh
write_config /mnt/usb-stick/contacts false
start_daemon
check "the error LED flashes" wait_level "$ERROR" 1 20
edges=$(count_edges "$ERROR" 5)
echo "error LED: $edges changes in 5 s (2 flashes every 2.4 s: about 8)"
check "the error LED flashes twice per cycle" test "$edges" -ge 6 -a "$edges" -le 10
check "power stays on" test "$(level "$POWER")" -eq 1
json=$(status_json)
echo "$json" | grep -o '"state":"[a-z]*","summary":"[^"]*"'
check "the status says attention: unreachable" sh -c "echo '$json' | grep -q '\"attention\":\"unreachable\"'"
check "the status names the missing folder" sh -c "echo '$json' | grep -q '/mnt/usb-stick/contacts'"
# Plugging the stick in and pressing the button clears it.
mkdir -p /mnt/usb-stick/contacts
short_press
check "after the fix and a press: idle" idle 20
stop_daemon
check "exits 0 on SIGTERM" test "$rc" -eq 0
show_log_on_failure
