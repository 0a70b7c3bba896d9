# Deletions held by the guard (the folder suddenly empty) flash 3 times; a long press confirms them.
. /opt/vm/daemon.sh
write_config /var/lib/nas
contactbox import --db /var/lib/contactbox/contacts.sqlite /opt/vm/contacts.vcf >/dev/null 2>&1
start_daemon
check "the daemon drives the LEDs" daemon_drives_leds
check "the start-up sync sends the contacts, then idle" idle 60
synced=$(vcf_count /var/lib/nas)
check "the folder holds the contacts" test "$synced" -gt 10
rm -f /var/lib/nas/*.vcf
short_press
check "deletions held: the error LED flashes" within 20 blinking "$ERROR"
check "the status says deletions are held" wait_status '"attention":"deletions_held"' 5
check "no contact was deleted from the store" wait_status '"contacts":'"$synced" 2
press "$BUTTON"
sleep 3.4
check "at 3 s every LED lights to acknowledge" sh -c "[ \$(level $POWER)\$(level $SYNC)\$(level $ERROR) = 111 ]"
release "$BUTTON"
check "released: the deletions are carried out" wait_status '"contacts":0' 20
check "back to idle" idle 20
stop_daemon
check "exits 0 on SIGTERM" test "$rc" -eq 0
show_log_on_failure
