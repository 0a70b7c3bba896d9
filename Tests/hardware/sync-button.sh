# A short press syncs: the sync LED blinks, the vdir folder receives the store's contacts, then back to idle.
. /opt/vm/daemon.sh
write_config /var/lib/nas
# An empty store at start; the contacts are imported while the daemon runs, and wait for the button.
start_daemon
check "the daemon drives the LEDs" daemon_drives_leds
check "idle after start" idle 20
check "nothing synced yet" test "$(vcf_count /var/lib/nas)" -eq 0
contactbox import --db /var/lib/contactbox/contacts.sqlite /opt/vm/contacts.vcf >/dev/null 2>&1
expected=$(contactbox list --db /var/lib/contactbox/contacts.sqlite | wc -l)
short_press
check "the press starts a sync: the sync LED blinks" within 3 blinking "$SYNC"
edges=$(count_edges "$SYNC" 1)
echo "sync LED: $edges changes in 1 s while syncing"
check "the sync LED blinks while syncing" test "$edges" -ge 2
check "back to idle after the sync" idle 60
check "the folder received every contact ($expected)" test "$(vcf_count /var/lib/nas)" -eq "$expected"
check "the status page counts the upload" wait_status '"uploaded":'"$expected" 5
check "one button press counted" sh -c 'wget -q -O - http://127.0.0.1:8080/metrics | grep -q "^contactbox_button_presses_total 1"'
stop_daemon
check "exits 0 on SIGTERM" test "$rc" -eq 0
show_log_on_failure
