# Pairing a browser with the box's button on the real GPIO lines: the pairing look, a short press pairs (and does
# not sync), and a hold of 10 s blinks every LED fast and forgets every paired browser. (A request left alone
# lapses after 2 minutes: ApplianceCoreTests.)
. /opt/vm/daemon.sh
write_config /var/lib/nas
start_daemon
check "the daemon drives the LEDs" daemon_drives_leds
check "the start-up sync ends idle" idle 60
check "unpaired: GET /api/pairing says none" unpaired_now
check "asked on the page, the LEDs show pairing, and a short press pairs" pair_with_button
check "the press paired and did not sync" test "$(grep -c 'Button pressed: sync now' "$LOG")" -eq 0
check "the journal names where the browser paired from" grep -q "Button pressed: browser paired.*127.0.0.1" "$LOG"
check "back to idle after pairing" idle 10
check "the pairing is kept beside the store, mode 0600" sh -c \
	'[ "$(stat -c %a /var/lib/contactbox/pairings)" = 600 ] && grep -q "^browser " /var/lib/contactbox/pairings'

press "$BUTTON"
sleep 3.4
check "at 3 s every LED lights" sh -c "[ \$(level $POWER)\$(level $SYNC)\$(level $ERROR) = 111 ]"
sleep 7
check "at 10 s every LED blinks fast" sh -c "[ \$(count_edges $POWER 0.6) -ge 2 ] && [ \$(count_edges $ERROR 0.6) -ge 2 ]"
release "$BUTTON"
check "released after 10 s: the browser is forgotten" within 5 sh -c \
	'! grep -q "^browser " /var/lib/contactbox/pairings'
check "its cookie is no longer paired" unpaired_now
check "the journal says every browser was forgotten" grep -q "Button held 10 s: every paired browser forgotten" "$LOG"
check "the hold did not sync or retry" test "$(grep -c 'Sync pass started' "$LOG")" -eq 1
check "back to idle" idle 10
stop_daemon
check "exits 0 on SIGTERM" test "$rc" -eq 0
show_log_on_failure
