# shellcheck shell=bash
# The installed box under a real systemd: runs in the Debian guest of
# Tests/hardware/gpio-vm (run --guest debian), as root, in bash, after
# lib.sh (check, press, level, on_host, reboot_vm ...) and once per boot.
# Tests/systemd/run.sh adds the release binaries (/opt/vm/bin), the files
# install.sh needs (/opt/contactbox-src) and /opt/vm/stage.env (Radicale's
# address on the host, the number of contacts there).
# The checks pass sh -c scripts in single quotes on purpose: the inner shell expands them.
# shellcheck disable=SC2016
# shellcheck source=Tests/hardware/daemon.sh
. /opt/vm/daemon.sh
# shellcheck source=/dev/null
. /opt/vm/stage.env
src=/opt/contactbox-src
unit=contactbox
cred=/etc/contactbox/radicale.password

show() { systemctl show -p "$1" --value "$unit"; }
# memory_check WHAT: the service's cgroup (made anew at each start) stayed within MemoryMax, and nothing in it was
# killed since the start
memory_check() {
	local cg=/sys/fs/cgroup/system.slice/$unit.service peak
	peak=$(cat "$cg/memory.peak")
	echo "memory: peak $((peak / 1024)) KiB through $1; MemoryHigh $(show MemoryHigh), MemoryMax $(show MemoryMax); events: $(paste -sd' ' "$cg/memory.events")"
	check "Memory: memory.peak within MemoryMax ($1)" test "$peak" -le "$(show MemoryMax)"
	check "Memory: nothing killed ($1)" test "$(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.events")" = 0
}
# restart_box: restarts the service, and shows its journal at once if it does not come up
restart_box() {
	if ! systemctl "${1:-restart}" "$unit"; then
		fail "systemctl ${1:-restart} $unit"
		journalctl -u "$unit" -b --no-pager -n 30 | sed 's/^/  journal: /'
	fi
}
main_pid() { show MainPID; }
# journal_since CURSOR_FILE: the unit's journal lines after the cursor saved there
journal_since() { journalctl -u "$unit" --no-pager -o cat --after-cursor="$(cat "$1")"; }
mark_journal() { journalctl -n 0 --show-cursor -q | sed -n 's/^-- cursor: //p' >"$1"; }

# The configuration a household writes after installing: the Radicale address book
# on the host (or BOOK_URL), its password as a systemd credential, and (add_nas) a vdir folder.
write_box_config() {
	local nas=""
	if [ -n "${1:-}" ]; then
		nas=$'\n[[remote]]\nname = "nas"\nkind = "vdir"\nfolder = "/var/lib/contactbox/nas"\ncreate_folder = true'
	fi
	cat >/etc/contactbox/contactbox.toml <<CONF
[sync]
interval = "1h"

[panel]
board = "raspberry-pi-4"

[[remote]]
name = "radicale"
kind = "carddav"
url = "${BOOK_URL:-$RADICALE_URL}"
username = "alice"
password_credential = "radicale"
allow_insecure_http = true
$nas
CONF
}

case $GPIO_VM_BOOT in
1)
	# ---- Install, as a household with a Pi 4 does (here the board is named: a VM
	# has no device tree), with the prebuilt binaries
	if bash "$src/Deploy/install.sh" --bin /opt/vm/bin --board raspberry-pi-4 --hostname contactbox \
		>/tmp/install.log 2>&1; then
		pass "install.sh --bin installs and starts the service"
	else
		fail "install.sh --bin installs and starts the service"
		sed 's/^/  install: /' /tmp/install.log
	fi
	check "the service runs with the example configuration" within 60 sh -c "[ \"\$(systemctl is-active $unit)\" = active ]"
	# ---- Nothing to sync yet: the example configures no address book
	check "Setup: a fresh box with no address book says so on its page" wait_status '"state":"setup"' 30
	check "Setup: and on its LEDs (power steady, sync double flashes, error dark)" within 10 sh -c \
		"[ \$(level $POWER)\$(level $ERROR) = 10 ] && [ \$(count_edges $POWER 2.2) -eq 0 ] && [ \$(count_edges $SYNC 2.2) -ge 3 ]"
	check "Setup: a browser is paired by a press of the button" pair_with_button
	PAIRING_COOKIE='' PAIRING_TOKEN=''
	# ---- Failures: a configuration error at start. The daemon exits 78; it must
	# not be restarted every RestartSec for ever.
	printf '[sync]\ninterval = "soon"\n' >>/etc/contactbox/contactbox.toml
	systemctl restart "$unit" 2>/dev/null
	sleep 11 # two RestartSec and a margin
	echo "with a broken configuration: $(systemctl show -p ActiveState,Result,ExecMainStatus,NRestarts "$unit" | paste -sd' ')"
	check "Failures: a configuration error at start (exit 78) is not restarted in a loop" \
		test "$(show ExecMainStatus) $(show NRestarts) $(show ActiveState)" = "78 0 failed"
	check "the journal says why, at priority err" sh -c "journalctl -u $unit -b -p err -o cat | grep 'contactbox.toml:'"
	# ---- The household's own configuration, the password as a credential
	write_box_config
	install -m 600 -o root -g root /dev/null "$cred"
	printf '%s\n' "$RADICALE_PASSWORD" >"$cred"
	mkdir -p /etc/systemd/system/$unit.service.d
	printf '[Service]\nLoadCredential=radicale:%s\n' "$cred" >/etc/systemd/system/$unit.service.d/credential.conf
	systemctl daemon-reload
	systemctl reset-failed "$unit"
	reboot_vm
	;;
esac

# ==== Page remote, after the reboot (boot 3): the end of boot 2 ("Page remote" below) set the box up afresh, added
# a CardDAV book of the host's Radicale from the page, and rebooted. The daemon starts with it, syncs it again, and
# check-config lists it with its file.
# page_book_found: the page's find ended found, with PAGE_URL among the books; page_synced_ok: a sync run of this
# daemon ended ok (its counters start at 0 with each start)
page_book_found() { setup_phase found && grep -q "\"url\":\"$PAGE_URL\"" /tmp/page.body; }
page_synced_ok() {
	curl -s http://127.0.0.1:8080/metrics |
		awk '$1 ~ /^contactbox_sync_runs_total/ && index($1, "outcome=\"ok\"") { n += $2 } END { exit !(n >= 1) }'
}
# ---- No clock at boot (issue 36): boot 3 starts with the RTC two years behind (reboot_vm's offset: QEMU's -rtc
# base=), as a Pi without a battery-backed clock does until the network time sets it; systemd-timesyncd's traces
# stand in for it (its state folder, made at the end of boot 2, and /run/systemd/timesync/synchronized, touched when
# the network time is taken: here Radicale's Date header). See "No clock" in boot 3.
net_time() { date -u -d "$(curl -sI --max-time 5 "$RADICALE_URL" | tr -d '\r' | sed -n 's/^[Dd]ate: //p')" +%s; }
clock_card() { printf 'BEGIN:VCARD\r\nVERSION:3.0\r\nUID:clock-test\r\nFN:Clock Test\r\nN:Test;Clock;;;\r\nNOTE:%s\r\n%bEND:VCARD\r\n' "$@"; }
put_card() { clock_card "$@" | curl -sf -o /dev/null -u "alice:$RADICALE_PASSWORD" -X PUT -H 'Content-Type: text/vcard' --data-binary @- "${PAGE_URL}clock-test.vcf"; }
server_note() { curl -sf -u "alice:$RADICALE_PASSWORD" "${PAGE_URL}clock-test.vcf" | tr -d '\r' | sed -n 's/^NOTE://p'; }
box_edit() { clock_card "$1" "" >/tmp/clock.vcf && runuser -u contactbox -- contactbox import --update --db /var/lib/contactbox/contacts.sqlite /tmp/clock.vcf >/dev/null; }
# clock_set: the network time taken: the clock right again, and said to be
clock_set() { date -s "@$(net_time)" >/dev/null && mkdir -p /run/systemd/timesync && touch /run/systemd/timesync/synchronized; }
next_sync_ok() { # the next pass is due within the interval (1 h) of now
	local next
	next=$(curl -s http://127.0.0.1:8080/api/status | sed -n 's/.*"next_sync":\([0-9]*\).*/\1/p')
	[ -n "$next" ] && [ "$next" -gt "$(date +%s)" ] && [ "$next" -le $(($(date +%s) + 3660)) ]
}
last_import_ms() { # the time of the newest history row of clock-test made by an import (the box's edit)
	contactbox history --db /var/lib/contactbox/contacts.sqlite clock-test --json | grep '"reason":"replaced by import"' |
		head -n 1 | sed -n 's/.*"time_ms":\([0-9]*\).*/\1/p'
}

if [ "$GPIO_VM_BOOT" = 3 ]; then
	page_remote=$(sed -n 's/^name = "\(.*\)"$/\1/p' /var/lib/contactbox/settings.toml 2>/dev/null | head -n 1)
	check "Page remote: after the reboot the service is active" within 120 sh -c "[ \"\$(systemctl is-active $unit)\" = active ]"
	check "Page remote: it starts with the page's remote ($page_remote), not on the setup look" \
		wait_status '"name":"'"$page_remote"'","kind":"carddav"' 60
	check "Page remote: its start-up sync after the reboot ends ok" within "$SYNC_BOUND_S" page_synced_ok
	check "Page remote: the page shows last_result ok and its $PAGE_CONTACTS contacts" status_has \
		'"contacts":'"$PAGE_CONTACTS"'[,}].*"name":"'"$page_remote"'","kind":"carddav","last_result":"ok"'
	check "Page remote: the LEDs show the idle look" idle 60
	runuser -u contactbox -- contactbox check-config >/tmp/check-config.txt 2>&1
	sed 's/^/  | /' /tmp/check-config.txt
	check "Page remote: check-config lists it with settings.toml and its line, configuration OK" sh -c \
		'grep -q "^  remote \"'"$page_remote"'\" (/var/lib/contactbox/settings.toml:[0-9]*):" /tmp/check-config.txt &&
		grep -q "^configuration OK" /tmp/check-config.txt'
	if journalctl -b --no-pager -o cat -u "$unit" | grep -E 'EPERM|SIGSYS|Read-only file system|Operation not permitted|Permission denied' >/tmp/denied.txt; then
		fail "Page remote: nothing denied in the journal since the reboot"
		head -n 20 /tmp/denied.txt | sed 's/^/  | /'
	else
		pass "Page remote: nothing denied in the journal since the reboot"
	fi
	# ---- No clock: the box started two years behind, its clock not set
	# (systemd moves a clock earlier than its own build forward to that date: still far behind)
	check "No clock: the box started months behind (the RTC two years back)" test "$(date +%s)" -lt $(($(net_time) - 30 * 86400))
	check "No clock: the box says its clock is not set" sh -c \
		'journalctl -u contactbox -b --no-pager -o cat | grep -q "The clock is not set yet"'
	check "No clock: its start-up sync is listed marked (clock not set)" sh -c \
		'contactbox runs --db /var/lib/contactbox/contacts.sqlite --limit 1 | grep -q "(clock not set)"'
	check "No clock: a card on the server" put_card "as first written" ""
	curl -s -o /dev/null -X POST http://127.0.0.1:8080/api/sync
	check "No clock: the box has it" within 60 sh -c \
		'contactbox show --db /var/lib/contactbox/contacts.sqlite clock-test 2>/dev/null | grep -q "as first written"'
	check "No clock: an edit on the server, an hour ago by its REV" \
		put_card "the server's earlier edit" "REV:$(date -u -d "@$(($(net_time) - 3600))" +%Y%m%dT%H%M%SZ)\r\n"
	check "No clock: an edit on the box, now" box_edit "the box's later edit"
	mark_journal /tmp/clock.cursor
	curl -s -o /dev/null -X POST http://127.0.0.1:8080/api/sync
	check "No clock: the conflict waits for the correct time" wait_status '"state":"waiting_for_time"' 120
	check "No clock: the page says why" status_has 'Waiting for the correct time: 1 conflict'
	check "No clock: no red: the error LED is dark" status_has '"name":"error","lit":false'
	check "No clock: nothing went out: the server keeps its version" test "$(server_note)" = "the server's earlier edit"
	clock_set
	check "No clock: set by the network time, the box syncs at once and its later edit wins" within 60 sh -c \
		'[ "$(curl -sf -u "alice:$1" "$0clock-test.vcf" | tr -d "\r" | sed -n "s/^NOTE://p")" = "the box'"'"'s later edit" ]' \
		"$PAGE_URL" "$RADICALE_PASSWORD"
	check "No clock: idle again" wait_status '"state":"idle"' 60
	check "No clock: the journal says the clock was set" grep -q "The clock is set from the network time" \
		<(journal_since /tmp/clock.cursor)
	check "No clock: the edit's time is put right: within five minutes of now, not two years back" \
		test $(($(date +%s) - $(last_import_ms) / 1000)) -le 300
	check "No clock: the runs' times are put right: none marked, the newest dated now" sh -c \
		'! contactbox runs --db "$0" --limit 100 | grep -q "(clock not set)" &&
		contactbox runs --db "$0" --json --limit 1 | grep -q "\"started\":\"$(date -u +%Y-%m-%d)"' \
		/var/lib/contactbox/contacts.sqlite
	sleep 20
	check "No clock: no burst of passes after the jump (2 at most: the one asked for, the one at the setting)" \
		test "$(journal_since /tmp/clock.cursor | grep -c 'Sync pass started')" -le 2
	check "No clock: nor a stalled schedule: the next pass within the hour" within 30 next_sync_ok
	# An hour ahead, put back: stopped, the clock an hour ahead and not set, an edit, then the network time.
	systemctl stop "$unit"
	rm -f /run/systemd/timesync/synchronized
	date -s "@$(($(net_time) + 3600))" >/dev/null
	restart_box start
	check "No clock: an hour ahead, an edit on the box" box_edit "an hour ahead"
	edited=$(net_time)
	clock_set
	curl -s -o /dev/null -X POST http://127.0.0.1:8080/api/sync
	check "No clock: set back an hour, the box syncs the edit" within 60 sh -c \
		'[ "$(curl -sf -u "alice:$1" "$0clock-test.vcf" | tr -d "\r" | sed -n "s/^NOTE://p")" = "an hour ahead" ]' \
		"$PAGE_URL" "$RADICALE_PASSWORD"
	d=$(($(last_import_ms) / 1000 - edited))
	check "No clock: the edit's time is put back an hour (within a minute of when it was made: ${d} s)" \
		test "${d#-}" -le 60
	check "No clock: the schedule is not stalled by the clock going back" within 30 next_sync_ok
	rm -rf /var/lib/systemd/timesync

	[ "$GPIO_VM_FAILS" -eq 0 ] || journalctl -u "$unit" -b --no-pager -n 60 | sed 's/^/  journal: /'
	exit 0
fi
# ==== (end of Page remote, after the reboot)

# ---- boot 2: First boot
check "First boot: the service is active after the reboot" within 120 sh -c "[ \"\$(systemctl is-active $unit)\" = active ]"
ready_us=$(($(show ActiveEnterTimestampMonotonic) - $(show ExecMainStartTimestampMonotonic)))
boot_us=$(show ActiveEnterTimestampMonotonic)
echo "READY: $((ready_us / 1000)) ms after the daemon started, at uptime $((boot_us / 1000)) ms (kernel start to READY)"
check "READY=1 within ${READY_BOUND_S} s of the start" test "$ready_us" -le $((READY_BOUND_S * 1000000))
systemctl status --no-pager -n 0 "$unit" >/tmp/status.txt 2>&1
sed 's/^/  | /' /tmp/status.txt | head -n 12
check "systemctl status shows the summary line (Status: \"...\")" grep -q '^ *Status: "' /tmp/status.txt
check "the start-up sync fetches every contact from Radicale ($RADICALE_CONTACTS), password from LoadCredential=" \
	wait_status '"contacts":'"$RADICALE_CONTACTS" "$SYNC_BOUND_S"
check "the LEDs show the idle look" idle 30
check "the status page answers on port 8080, forwarded to the host" on_host status-page 60
check "Avahi: contactbox.local resolves inside the guest" sh -c \
	'timeout 15 avahi-resolve -4 -n contactbox.local | tee /dev/stderr | grep -q "10\.0\.2\.15"'
check "Avahi announces the status page (_http._tcp)" sh -c \
	'timeout 15 avahi-browse -t -r -p _http._tcp 2>/dev/null | grep -q "ContactBox"'

# ---- Memory: the start-up sync above went through the cgroup's cap
memory_check "the sync of $RADICALE_CONTACTS contacts"

# ---- Reload
cp /etc/contactbox/contactbox.toml /tmp/good.toml
pid=$(main_pid)
mark_journal /tmp/cursor
printf '[sync]\ninterval = "soon"\n' >>/etc/contactbox/contactbox.toml
systemctl reload "$unit"
check "Reload: a broken configuration keeps the daemon (same PID)" test "$(main_pid)" = "$pid"
check "Reload: the journal says why" within 10 sh -c 'journalctl -u contactbox --no-pager -o cat --after-cursor="$(cat /tmp/cursor)" | grep -q "not reloaded"'
check "Reload: the page says why" within 10 status_has 'not reloaded'
mark_journal /tmp/cursor
write_box_config nas
systemctl reload "$unit"
check "Reload: with a good one, the journal says reloaded" within 10 sh -c 'journalctl -u contactbox --no-pager -o cat --after-cursor="$(cat /tmp/cursor)" | grep -q "Configuration reloaded"'
check "Reload: the new remote is syncing (files arrive)" within 60 sh -c '[ "$(find /var/lib/contactbox/nas -name "*.vcf" 2>/dev/null | wc -l)" -gt 0 ]'

# ---- Stop, in the middle of that sync
# The time is systemd's own: from just before the request (the guest's uptime, which is CLOCK_MONOTONIC in a VM
# that never suspends) to the main process's exit; polling with whole-second deadlines cannot measure 5 s.
mark_journal /tmp/cursor
start_dark_watch "$(main_pid)"
read -r requested _ </proc/uptime
systemctl stop --no-block "$unit"
check "Stop: the LEDs go dark before it lets go of them" wait "$watcher"
check "Stop: the process ends" within 30 sh -c '[ "$(systemctl show -p MainPID --value contactbox)" = 0 ] && [ "$(systemctl is-active contactbox)" = inactive ]'
stop_ms=$((($(show ExecMainExitTimestampMonotonic) - ${requested/./}0000) / 1000))
echo "stopped in $stop_ms ms; result $(show Result), status $(show ExecMainStatus)"
journal_since /tmp/cursor | tail -n 4 | sed 's/^/  | /'
check "Stop: the process is gone within 5 s of the request" test "$stop_ms" -le 5000
sent=$(vcf_count /var/lib/contactbox/nas)
echo "files written before the stop: $sent of $RADICALE_CONTACTS"
restart_box start
check "Stop: the next start resumes the sync" within "$SYNC_BOUND_S" sh -c '[ "$(find /var/lib/contactbox/nas -name "*.vcf" | wc -l)" -eq '"$RADICALE_CONTACTS"' ]'
check "then idle" idle 60

# ---- The button
short_press
check "Button: a press syncs (the sync LED blinks)" within 5 blinking "$SYNC"
check "Button: back to the idle look" idle 90
check "Button: one press counted" sh -c 'curl -s http://127.0.0.1:8080/metrics | grep -q "^contactbox_button_presses_total 1"'

# ---- The long press: 40 % of the folder's cards gone at once is held (the guard's share is 30 %), and a long
# press confirms it; the rest of the store stays.
gone=$((RADICALE_CONTACTS * 2 / 5))
find /var/lib/contactbox/nas -name '*.vcf' | sort | sed -n "1,${gone}p" | xargs rm -f
short_press
check "Long press: $gone cards gone from the folder are held (the error LED flashes)" within 60 blinking "$ERROR"
check "Long press: the page says deletions are held" within 10 status_has '"attention":"deletions_held"'
check "Long press: nothing was deleted from the store" status_has '"contacts":'"$RADICALE_CONTACTS"
press "$BUTTON"
sleep 3.4
check "Long press: at 3 s every LED lights to acknowledge" sh -c "[ \$(level $POWER)\$(level $SYNC)\$(level $ERROR) = 111 ]"
release "$BUTTON"
check "Long press: released, the deletions are carried out" wait_status '"contacts":'"$((RADICALE_CONTACTS - gone))" "$SYNC_BOUND_S"
check "Long press: then idle" idle 90

# ---- Failures: kill -9, then a stopped main loop
pid=$(main_pid)
restarts=$(show NRestarts)
kill -9 "$pid"
check "Failures: kill -9 -> restarted after RestartSec" within 30 sh -c '[ "$(systemctl show -p NRestarts --value contactbox)" = '"$((restarts + 1))"' ] && [ "$(systemctl is-active contactbox)" = active ]'
# The unit's WatchdogSec=60 would make this wait a minute: a runtime drop-in shortens it.
mkdir -p /run/systemd/system/$unit.service.d
printf '[Service]\nWatchdogSec=8\n' >/run/systemd/system/$unit.service.d/watchdog.conf
systemctl daemon-reload
restart_box
within 60 sh -c '[ "$(systemctl is-active contactbox)" = active ]'
idle 60
pid=$(main_pid)
kill -STOP "$pid"
check "Failures: SIGSTOP -> the watchdog kills it and it is restarted" within 40 sh -c \
	'p=$(systemctl show -p MainPID --value contactbox); [ "$p" != 0 ] && [ "$p" != '"$pid"' ] && [ "$(systemctl is-active contactbox)" = active ]'
check "the journal names the watchdog" sh -c 'journalctl -u contactbox -b --no-pager | grep -q "Watchdog timeout"'
rm -f /run/systemd/system/$unit.service.d/watchdog.conf
systemctl daemon-reload
restart_box

# ---- Journal: priorities
journalctl -u "$unit" -b -p warning --no-pager -o short-monotonic | tail -n 5 | sed 's/^/  | /'
check "Journal: the reload error is at priority err" sh -c 'journalctl -u contactbox -b -p err -o cat | grep -q "not reloaded"'
check "Journal: info lines are not errors" sh -c '! journalctl -u contactbox -b -p err -o cat | grep -q "Configuration reloaded"'

# ---- Upgrade: install.sh again with a newer build
within 60 sh -c '[ "$(systemctl is-active contactbox)" = active ]'
mkdir -p /tmp/newer
cp /opt/vm/bin/contactbox /opt/vm/bin/contactbox-remote /tmp/newer/
# a different file than the installed one (a trailing byte; ELF loaders ignore it)
printf '\n' >>/tmp/newer/contactbox
before=$(sha256sum /etc/contactbox/contactbox.toml "$cred" | awk '{ print $1 }' | paste -sd' ')
contacts=$(curl -s http://127.0.0.1:8080/api/status | grep -o '"contacts":[0-9]*')
pid=$(main_pid)
if bash "$src/Deploy/install.sh" --bin /tmp/newer >/tmp/upgrade.log 2>&1; then
	pass "Upgrade: install.sh --bin runs again"
else
	fail "Upgrade: install.sh --bin runs again"
	sed 's/^/  install: /' /tmp/upgrade.log
fi
check "Upgrade: the new binary is installed" cmp -s /tmp/newer/contactbox /usr/local/bin/contactbox
check "Upgrade: configuration and password file kept" test "$(sha256sum /etc/contactbox/contactbox.toml "$cred" | awk '{ print $1 }' | paste -sd' ')" = "$before"
check "Upgrade: the service was restarted" within 60 sh -c 'p=$(systemctl show -p MainPID --value contactbox); [ "$p" != 0 ] && [ "$p" != '"$pid"' ]'
check "Upgrade: the store is kept ($contacts)" wait_status "$contacts" 60

# ---- Memory at the larger size: a fresh store downloads the second address book under the unit's cap
systemctl stop "$unit"
rm -rf /var/lib/contactbox/contacts.sqlite* /var/lib/contactbox/nas
BOOK_URL=$MEMORY_URL write_box_config
restarts=$(show NRestarts)
started=$(date +%s)
restart_box start
check "Memory: a fresh store downloads $MEMORY_CONTACTS contacts" wait_status '"contacts":'"$MEMORY_CONTACTS" "$SYNC_BOUND_S"
echo "downloaded in about $(($(date +%s) - started)) s"
memory_check "the download of $MEMORY_CONTACTS contacts"
check "Memory: not restarted during it" test "$(show NRestarts)" = "$restarts"

# ---- Big photos (issue 31): a fresh store downloads a book of phones' photos (1.9 MB of base64 each, one of
# 4 MB; the 13.3 MB ones are Deploy/bench/photos.sh's, since Radicale takes minutes to read one)
# under the unit's cap, and every photo arrives byte for byte (/opt/vm/photos.digests: run.sh's, of the cards it seeded)
systemctl stop "$unit"
rm -rf /var/lib/contactbox/contacts.sqlite*
BOOK_URL=$PHOTOS_URL write_box_config
restarts=$(show NRestarts)
started=$(date +%s)
restart_box start
# (its end, whatever its outcome: a card refused fails the checks below at once, not at the bound)
sync_run_ended() {
	curl -s http://127.0.0.1:8080/metrics | awk '$1 ~ /^contactbox_sync_runs_total/ { n += $2 } END { exit !(n >= 1) }'
}
check "Big photos: the start-up sync of a book of phones' photos (1.9 and 4 MB of base64) ends" \
	within "$SYNC_BOUND_S" sync_run_ended
echo "synced in about $(($(date +%s) - started)) s"
memory_check "the download of $PHOTOS_CONTACTS contacts with big photos"
check "Big photos: not restarted during it" test "$(show NRestarts)" = "$restarts"
check "Big photos: the start-up sync ended ok" sh -c \
	'curl -s http://127.0.0.1:8080/metrics | grep "^contactbox_sync_runs_total" | grep -q "outcome=\"ok\""'
check "Big photos: the fresh store holds all $PHOTOS_CONTACTS contacts" wait_status '"contacts":'"$PHOTOS_CONTACTS"'[,}]' 10
rm -f /tmp/photos.vcf
if contactbox export --db /var/lib/contactbox/contacts.sqlite --out /tmp/photos.vcf 2>/tmp/export.err; then
	sh /opt/vm/photo_digests.sh /tmp/photos.vcf >/tmp/photos.digests
	if cmp -s /tmp/photos.digests /opt/vm/photos.digests; then
		pass "Big photos: every contact arrived with its photo, byte for byte"
	else
		fail "Big photos: every contact arrived with its photo, byte for byte (UID, SHA-256 of the photo: < seeded, > stored)"
		diff /opt/vm/photos.digests /tmp/photos.digests | sed 's/^/  | /'
	fi
	check "Big photos: no contact is unreadable" sh -c \
		'! contactbox list --db /var/lib/contactbox/contacts.sqlite | grep -q "(unreadable)"'
else
	fail "Big photos: contactbox export of the store"
	sed 's/^/  | /' /tmp/export.err
fi
rm -f /tmp/photos.vcf

# ---- Setup from the page: a folder added by a paired browser, under the unit's sandbox
kitchen=/var/lib/contactbox/kitchen
install -d -o contactbox -g contactbox -m 700 "$kitchen"
check "Setup: a browser is paired by the button" pair_with_button
check "Setup: the page asks for the folder's address book" test \
	"$(page_request POST /api/setup "action=find&provider=folder&address=$kitchen")" = 202
check "Setup: the folder is found" within 30 setup_phase found
check "Setup: the page adds it" test "$(page_request POST /api/setup "action=add&books=$kitchen")" = 202
check "Setup: it is tested and saved" within 30 setup_phase added
check "Setup: saved in the settings file beside the store, mode 0600" sh -c \
	'grep -q "name = \"kitchen\"" /var/lib/contactbox/settings.toml && [ "$(stat -c %a /var/lib/contactbox/settings.toml)" = 600 ]'
check "Setup: the daemon reloads and syncs it: the store's contacts arrive in the folder" within 120 sh -c \
	"[ \"\$(find $kitchen -name '*.vcf' | wc -l)\" -gt 0 ]"
# (check-config would stop at the Radicale password, a systemd credential only the service sees: README step 5.)
check "Setup: remote list shows it with its file and line" sh -c \
	'runuser -u contactbox -- contactbox remote list | grep "^kitchen" | grep -q "/var/lib/contactbox/settings.toml:"'

# ---- A damaged store (issue 36, a failing SD card): the day's safety copy beside the store, then pages of the
# store overwritten with garbage while the box is off. At the start the box finds it (SQLite's quick check), shows
# the store look and says on the page what to do, and syncs nothing; recover refuses while it runs, puts the copy
# back once it is stopped (owned by the service's user), and the box starts sound with every contact.
store=/var/lib/contactbox/contacts.sqlite
check "Damaged store: a safety copy is made beside the store (contactbox copy, as the box's user)" \
	runuser -u contactbox -- contactbox copy --db "$store"
check "Damaged store: the copy is the service's, mode 0600" sh -c \
	'[ "$(stat -c %U:%a /var/lib/contactbox/copies/newest.sqlite)" = contactbox:600 ]'
systemctl stop "$unit"
pages=$(($(stat -c %s "$store") / 4096))
# 8 pages from the middle of the file: pages of photos' texts and of the tables' trees
dd if=/dev/urandom of="$store" bs=4096 seek=$((pages / 2)) count=8 conv=notrunc status=none
check "Damaged store: check --quick finds the damage" sh -c '! contactbox check --quick --db "$0" >/dev/null 2>&1' "$store"
restart_box start
check "Damaged store: the box shows the store's attention, saying it is damaged" \
	wait_status '"summary":"The store is damaged[^"]*","attention":"storage"' 60
check "Damaged store: the page says to run contactbox recover" status_has 'contactbox recover'
check "Damaged store: the error LED shows the store look (4 flashes)" status_has '"name":"error","lit":[a-z]*,"pattern":"4 flashes'
check "Damaged store: a sync asked for is not run" sh -c \
	'curl -s -o /dev/null -X POST http://127.0.0.1:8080/api/sync; sleep 3; journalctl -u contactbox -b --no-pager -o cat | grep -q "Not syncing: the store is damaged"'
check "Damaged store: recover refuses while the box runs (exit 75)" sh -c \
	'contactbox recover --db "$0" >/dev/null 2>&1; [ $? = 75 ]' "$store"
systemctl stop "$unit"
check "Damaged store: recover puts the copy back" sh -c 'contactbox recover --db "$0" 2>&1 | tee /tmp/recover.txt | grep -q "^Recovered"' "$store"
sed 's/^/  | /' /tmp/recover.txt
check "Damaged store: the damaged store is kept beside it" sh -c 'ls /var/lib/contactbox/contacts.sqlite.damaged-* >/dev/null'
check "Damaged store: the recovered store is the service's" sh -c '[ "$(stat -c %U "$0")" = contactbox ]' "$store"
restart_box start
check "Damaged store: the box starts sound, with its $PHOTOS_CONTACTS contacts, and syncs" \
	wait_status '"state":"idle".*"contacts":'"$PHOTOS_CONTACTS"'[,}]' "$SYNC_BOUND_S"
check "Damaged store: contactbox check passes" contactbox check --db "$store"
# Again, recovered from the page this time: the paired browser arms it, a long press of the button confirms it, and
# the daemon itself (under its sandbox) puts the copy in place and syncs.
systemctl stop "$unit"
dd if=/dev/urandom of="$store" bs=4096 seek=$((pages / 2)) count=8 conv=notrunc status=none
restart_box start
damage_offered() { status_has '"damage":{"problem":' && grep -q '"copy":{"made":' /tmp/status.json; }
check "Damaged store: damaged again, the page offers to recover from the safety copy" within 180 damage_offered
check "Damaged store: a browser is paired by the button" pair_with_button
check "Damaged store: the page arms the recover (202)" test "$(post_page /api/recover)" = 202
check "Damaged store: the box waits for a long press (all LEDs blinking slowly)" \
	within 10 status_has '"name":"error","lit":[a-z]*,"pattern":"blinking 0.5 Hz"'
press "$BUTTON"
sleep 3.4
release "$BUTTON"
check "Damaged store: confirmed, the box recovers and syncs: idle with its $PHOTOS_CONTACTS contacts" \
	wait_status '"state":"idle".*"contacts":'"$PHOTOS_CONTACTS"'[,}]' "$SYNC_BOUND_S"
check "Damaged store: both damaged stores are kept beside it" test \
	"$(find /var/lib/contactbox -maxdepth 1 -name 'contacts.sqlite.damaged-*' ! -name '*-wal' ! -name '*-shm' | wc -l)" -ge 2
check "Damaged store: the store the daemon put back is the service's, and sound" sh -c \
	'[ "$(stat -c %U "$0")" = contactbox ] && contactbox check --db "$0" >/dev/null' "$store"

# ---- The box's name, set on the page by the paired browser: the daemon publishes it over mDNS with avahi-publish
# (as its own user, in its cgroup), and the page answers to it
# publishers: the PIDs of the avahi-publish processes in the unit's cgroup (no procps in the guest)
publishers() {
	local pid
	while read -r pid; do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = avahi-publish ] && echo "$pid"
	done <"/sys/fs/cgroup/system.slice/$unit.service/cgroup.procs"
	return 0
}
# no_publishers: none runs
no_publishers() { [ -z "$(publishers)" ]; }
# publishers_are_contactbox: some run, each as the unit's user
publishers_are_contactbox() {
	local pid
	[ -n "$(publishers)" ] || return 1
	for pid in $(publishers); do [ "$(stat -c %U "/proc/$pid")" = contactbox ] || return 1; done
}
# host_status HOST: the page's HTTP status for /api/status asked with Host: HOST
host_status() {
	curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H "Host: $1" http://127.0.0.1:8080/api/status
}
# box_name NAME: sets the box's name as the page's Settings section does (NAME empty: none); prints the HTTP status
box_name() {
	page_request GET /api/settings >/dev/null
	page_request POST /api/settings "action=box-name&value=$1&version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' /tmp/page.body)"
}
check "Box name: install.sh installed avahi-publish (avahi-utils)" command -v avahi-publish
check "Box name: none yet, nothing published by the daemon" no_publishers
check "Box name: none yet, the page refuses Host: kitchen.local (421)" test "$(host_status kitchen.local:8080)" = 421
mark_journal /tmp/cursor
check "Box name: the page saves kitchen" test "$(box_name kitchen)" = 200
check "Box name: the daemon reloads" within 10 sh -c \
	'journalctl -u contactbox --no-pager -o cat --after-cursor="$(cat /tmp/cursor)" | grep -q "Configuration reloaded"'
check "Box name: avahi-resolve -n kitchen.local resolves inside the guest" within 30 sh -c \
	'timeout 10 avahi-resolve -4 -n kitchen.local 2>/dev/null | grep -q "10\.0\.2\.15"'
avahi-resolve -4 -n kitchen.local 2>&1 | sed 's/^/  | /'
# -p writes a name's space as \032, -k the type as is; a resolved line: =;if;proto;name;type;domain;host;address;port;txt
check "Box name: avahi-browse lists \"ContactBox kitchen\" at kitchen.local:8080" within 30 sh -c \
	'timeout 15 avahi-browse -t -r -p -k _http._tcp 2>/dev/null | tee /tmp/browse.txt | grep -q "^=;.*;ContactBox\\\\032kitchen;_http\._tcp;local;kitchen\.local;[^;]*;8080;"'
grep 'ContactBox' /tmp/browse.txt | sed 's/^/  | /'
check "Box name: the page answers Host: kitchen.local:8080" test "$(host_status kitchen.local:8080)" = 200
check "Box name: and http://kitchen.local:8080/ at the address mDNS gives" sh -c \
	'a=$(timeout 10 avahi-resolve -4 -n kitchen.local | cut -f2); [ -n "$a" ] && [ "$(curl -s -o /dev/null -w "%{http_code}" --max-time 5 --resolve "kitchen.local:8080:$a" http://kitchen.local:8080/)" = 200 ]'
echo "avahi-publish processes in the unit's cgroup:"
for pid in $(publishers); do
	# footprint as Deploy/lib/footprint.py counts it: Private_Dirty + max(0, Anonymous - Private_Dirty)
	awk -v pid="$pid" -v args="$(tr '\0' ' ' <"/proc/$pid/cmdline")" \
		'$1 == "Private_Dirty:" { d = $2 } $1 == "Anonymous:" { a = $2 } $1 == "Rss:" { r = $2 } $1 == "Pss:" { p = $2 }
		END { printf "  pid %s footprint %d KiB (anonymous %d, private dirty %d), PSS %d KiB, RSS %d KiB, user %s: %s\n", pid, d + (a > d ? a - d : 0), a, d, p, r, u, args }' \
		u="$(stat -c %U "/proc/$pid")" "/proc/$pid/smaps_rollup"
done
echo "the unit's cgroup: memory.current $(($(cat /sys/fs/cgroup/system.slice/$unit.service/memory.current) / 1024)) KiB"
check "Box name: the processes run as contactbox" publishers_are_contactbox
check "Box name: unset on the page" test "$(box_name "")" = 200
check "Box name: unset, the daemon stops publishing it" within 15 no_publishers
check "Box name: unset, kitchen.local no longer resolves" within 30 sh -c \
	'! timeout 5 avahi-resolve -4 -n kitchen.local 2>/dev/null | grep -q "10\.0\.2\.15"'
check "Box name: unset, the page refuses Host: kitchen.local again" test "$(host_status kitchen.local:8080)" = 421
PAIRING_COOKIE='' PAIRING_TOKEN=''

# ---- Sandbox: every hardening line on, and nothing refused over all of the above
journalctl -b -1 -b 0 >/dev/null 2>&1 || true
if journalctl --no-pager -o cat -u "$unit" | grep -E 'EPERM|SIGSYS|Read-only file system|Operation not permitted|Permission denied' >/tmp/denied.txt; then
	fail "Sandbox: nothing denied in the journal over all scenarios"
	head -n 20 /tmp/denied.txt | sed 's/^/  | /'
else
	pass "Sandbox: nothing denied in the journal over all scenarios"
fi
# A refused system call returns EPERM (SystemCallErrorNumber=); a SIGSYS kill would be
# an audit record (type=1326) naming the program.
if journalctl -k --no-pager -o cat | grep 'type=1326' | grep 'contactbox' >/tmp/seccomp.txt; then
	fail "Sandbox: no seccomp kills of contactbox in the kernel log"
	head -n 5 /tmp/seccomp.txt | sed 's/^/  | /'
else
	pass "Sandbox: no seccomp kills of contactbox in the kernel log"
fi
systemd-analyze security --no-pager "$unit" >/tmp/security.txt 2>&1
grep -E 'Overall exposure level' /tmp/security.txt | sed 's/^/  /'
check "Sandbox: systemd-analyze security prints its score" grep -q 'Overall exposure level' /tmp/security.txt
[ "$GPIO_VM_FAILS" -eq 0 ] || journalctl -u "$unit" -b --no-pager -n 60 | sed 's/^/  journal: /'

# ==== Page remote (issue: a remote added from the page survives a reboot): the box set up afresh, with the example
# configuration and no store, starts on the setup look; a browser paired by the button finds the host's Radicale
# from its root URL with its user and password, adds a book of it (PAGE_URL), and the first sync brings its
# contacts; then a reboot, and boot 3 checks the rest (at the top, "Page remote, after the reboot").
read -r page_started _ </proc/uptime
systemctl stop "$unit"
install -m 640 -o root -g contactbox "$src/Deploy/contactbox.example.toml" /etc/contactbox/contactbox.toml
rm -rf /var/lib/contactbox/* /etc/systemd/system/$unit.service.d/credential.conf
systemctl daemon-reload
restart_box start
check "Page remote: the box, without address books again, shows the setup look" wait_status '"state":"setup"' 60
check "Page remote: a browser is paired by the button" pair_with_button
check "Page remote: the page asks for the books at the host's Radicale root ($PAGE_ROOT)" test \
	"$(page_request POST /api/setup "action=find&provider=carddav&address=$PAGE_ROOT&username=alice&password=$RADICALE_PASSWORD")" = 202
check "Page remote: its books are found, $PAGE_URL among them" within 120 page_book_found
check "Page remote: the page adds it" test "$(page_request POST /api/setup "action=add&books=$PAGE_URL")" = 202
check "Page remote: it is tested and saved" within 120 setup_phase added
sed 's/^/  | /' /tmp/page.body
check "Page remote: in settings.toml, its password in secrets/ (0600), not in the file" sh -c \
	'grep -q "url = \"$0\"" /var/lib/contactbox/settings.toml && ! grep -q "$1" /var/lib/contactbox/settings.toml &&
	[ "$(stat -c %a /var/lib/contactbox/secrets/* | sort -u)" = 600 ]' "$PAGE_URL" "$RADICALE_PASSWORD"
check "Page remote: the first sync brings its $PAGE_CONTACTS contacts" wait_status '"contacts":'"$PAGE_CONTACTS"'[,}]' "$SYNC_BOUND_S"
check "Page remote: contactbox list shows them" sh -c \
	'[ "$(contactbox list --db /var/lib/contactbox/contacts.sqlite | wc -l)" -ge '"$PAGE_CONTACTS"' ]'
PAIRING_COOKIE='' PAIRING_TOKEN=''
read -r page_ended _ </proc/uptime
echo "the page's remote, from the stop of the box to its first sync: $((${page_ended%.*} - ${page_started%.*})) s"
[ "$GPIO_VM_FAILS" -eq 0 ] || journalctl -u "$unit" -b --no-pager -n 30 | sed 's/^/  journal: /'
# The next boot without a clock: timesyncd's state folder, the RTC two years behind ("No clock" in boot 3)
mkdir -p /var/lib/systemd/timesync
reboot_vm $((-730 * 86400))
# ==== (end of Page remote)
