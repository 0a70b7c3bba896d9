# After start the LEDs show "starting", then the idle look: power steady, sync and error dark.
. /opt/vm/daemon.sh
write_config /var/lib/nas
start_daemon
check "the daemon drives the LEDs" daemon_drives_leds
check "the LEDs settle on the idle look" idle 20
check "the status page says idle" wait_status '"state":"idle"' 5
check "the start-up sync created the folder" test -d /var/lib/nas
stop_daemon
check "exits 0 on SIGTERM" test "$rc" -eq 0
show_log_on_failure
