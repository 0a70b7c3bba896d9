# A remote that fails lights the error pattern (2 flashes: unreachable), and /api/status says why.
. /opt/vm/daemon.sh
write_config /mnt/usb-stick/contacts false
start_daemon
check "the daemon drives the LEDs" daemon_drives_leds
check "the error LED flashes" within 20 blinking "$ERROR"
edges=$(count_edges "$ERROR" 5)
echo "error LED: $edges changes in 5 s (2 flashes every 2.4 s: about 8)"
check "the error LED flashes twice per cycle" test "$edges" -ge 6 -a "$edges" -le 10
check "power stays on" test "$(level "$POWER")" -eq 1
check "the status says attention: unreachable" status_has '"attention":"unreachable"'
grep -o '"summary":"[^"]*"' /tmp/status.json
check "the status names the missing folder" status_has '/mnt/usb-stick/contacts'
# Plugging the stick in and pressing the button clears it.
mkdir -p /mnt/usb-stick/contacts
short_press
check "after the fix and a press: idle" idle 20
check "the status says idle" status_has '"state":"idle"'
stop_daemon
check "exits 0 on SIGTERM" test "$rc" -eq 0
show_log_on_failure
