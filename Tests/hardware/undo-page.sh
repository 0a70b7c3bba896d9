# "Undo this sync" from the status page: the page's preview and confirmation change nothing, the LEDs blink slowly
# all together while the box waits, and a long press undoes the sync in the store and carries it to the folder.
. /opt/vm/daemon.sh
write_config /var/lib/nas
contactbox import --db /var/lib/contactbox/contacts.sqlite /opt/vm/contacts.vcf >/dev/null 2>&1
start_daemon
check "the daemon drives the LEDs" daemon_drives_leds
check "the start-up sync sends the contacts, then idle" idle 60
total=$(vcf_count /var/lib/nas)
check "the folder holds the contacts" test "$total" -gt 10

# A sync that changes contacts: ten renamed in the folder, taken into the store by a press.
for file in $(find /var/lib/nas -name '*.vcf' | sort | head -n 10); do
	sed -i 's/^FN:/FN:Renamed /' "$file"
done
short_press
check "the press syncs the renaming into the store" within 60 sh -c \
	'[ "$(contactbox list --db /var/lib/contactbox/contacts.sqlite | grep -c Renamed)" -eq 10 ]'
check "back to idle" idle 60
check "the status page lists the sync as a restore point" wait_status '"runs":\[{"id":[0-9]*,"kind":"sync","remote":"nas"' 5
run=$(sed -n 's/.*"runs":\[{"id":\([0-9]*\),.*/\1/p' /tmp/status.json)
echo "restore point: run $run"

check "an unpaired browser cannot ask for the undo (403)" test "$(post_page "/api/undo/preview?run=$run")" = 403
check "the page asks to pair, the LEDs show it, a press of the button pairs it" pair_with_button
check "the press paired and did not sync" grep -q "Button pressed: browser paired" "$LOG"
check "arming before the preview is refused (409)" test "$(post_page "/api/undo?run=$run")" = 409
check "the page asks for the preview (202)" test "$(post_page "/api/undo/preview?run=$run")" = 202
check "the preview: 10 contacts would be put back" wait_status '"undo":{"run":'"$run"',"phase":"previewed","deadline":null,"revived":0,"reverted":10' 20
check "the page confirms: armed (202)" test "$(post_page "/api/undo?run=$run")" = 202
check "the status says armed" wait_status '"phase":"armed"' 5
check "the page shows the LEDs blinking 0.5 Hz" status_has '"name":"error","lit":[a-z]*,"pattern":"blinking 0.5 Hz"'
check "the power LED blinks slowly" sh -c "[ \$(count_edges $POWER 2.5) -ge 2 ]"
check "the error LED blinks slowly" sh -c "[ \$(count_edges $ERROR 2.5) -ge 2 ]"
check "all three LEDs together" within 3 sh -c "[ \$(level $POWER)\$(level $SYNC)\$(level $ERROR) = 111 ]"
check "all three LEDs dark together" within 3 dark_now
check "nothing changed yet: the store still has the renaming" test \
	"$(contactbox list --db /var/lib/contactbox/contacts.sqlite | grep -c Renamed)" -eq 10
check "nothing changed yet: the folder neither" test "$(grep -l 'FN:Renamed' /var/lib/nas/*.vcf | wc -l)" -eq 10

press "$BUTTON"
sleep 3.4
check "at 3 s every LED lights to acknowledge" sh -c "[ \$(level $POWER)\$(level $SYNC)\$(level $ERROR) = 111 ]"
release "$BUTTON"
check "released: the undo is done, 10 put back" wait_status '"phase":"done","deadline":null,"revived":0,"reverted":10' 30
check "the store has the names back" within 30 sh -c \
	'[ "$(contactbox list --db /var/lib/contactbox/contacts.sqlite | grep -c Renamed)" -eq 0 ]'
check "the next pass carried it to the folder" within 60 sh -c "[ \$(grep -l 'FN:Renamed' /var/lib/nas/*.vcf | wc -l) -eq 0 ]"
check "back to idle" idle 60
check "the folder still holds every contact" test "$(vcf_count /var/lib/nas)" -eq "$total"
check "the undo is a restore point of its own" wait_status '"runs":\[{"id":[0-9]*,"kind":"undo"' 5
check "the journal says it was armed" grep -q "Undo armed on the status page" "$LOG"
check "the journal says it was confirmed" grep -q "Long press: undo confirmed" "$LOG"
check "the journal says it was done, with counts" grep -q "Undo done.*10 put back" "$LOG"
stop_daemon
check "exits 0 on SIGTERM" test "$rc" -eq 0
show_log_on_failure
