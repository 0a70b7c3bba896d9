# Sourced by every hardware scenario inside the gpio-vm (busybox sh, as root): writes the configuration, starts
# and stops `contactbox run`, and reads its status page. The VM's chip is labelled and named like a Raspberry Pi
# 4's header (pinctrl-bcm2711, GPIO0..GPIO27), and the daemon uses Board/raspberry-pi-4.toml unchanged:
# power LED GPIO17, sync LED GPIO27, error LED GPIO22, button GPIO23.
export CONTACTBOX_BOARDS=/usr/share/contactbox/boards
CONFIG=/etc/contactbox/contactbox.toml
LOG=/tmp/contactbox.log
POWER=GPIO17
SYNC=GPIO27
ERROR=GPIO22
BUTTON=GPIO23

# write_config FOLDER [CREATE_FOLDER]: one vdir remote, hourly syncs, the status page on loopback.
write_config() {
	mkdir -p /etc/contactbox /var/lib/contactbox
	cat >"$CONFIG" <<CONF
store = "/var/lib/contactbox/contacts.sqlite"

[sync]
interval = "1h"

[panel]
board = "raspberry-pi-4"

[status]
listen = "127.0.0.1:8080"

[[remote]]
name = "nas"
kind = "vdir"
folder = "$1"
create_folder = ${2:-true}
CONF
}

start_daemon() {
	contactbox run --config "$CONFIG" >>"$LOG" 2>&1 &
	pid=$!
}

# stop_daemon: SIGTERM; sets rc to its exit status and took to the seconds it needed.
stop_daemon() {
	started=$(date +%s)
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	took=$(($(date +%s) - started))
}

status_json() {
	# busybox wget in the small guest, curl in the Debian one (Tests/systemd)
	if command -v wget >/dev/null; then
		wget -q -O - http://127.0.0.1:8080/api/status
	else
		curl -s --max-time 5 http://127.0.0.1:8080/api/status
	fi
}

# page_request METHOD PATH [FORM]: a request to the status page as its script sends it (same origin; once paired,
# with the pairing's cookie and token, PAIRING_COOKIE and PAIRING_TOKEN; FORM as a urlencoded body); the body goes
# to /tmp/page.body and the headers to /tmp/page.headers; prints the HTTP status. curl: the harness brings it
# (Tests/hardware/run.sh).
page_request() {
	curl -s -D /tmp/page.headers -o /tmp/page.body -w '%{http_code}' --max-time 5 -X "$1" \
		-H 'Origin: http://127.0.0.1:8080' ${PAIRING_COOKIE:+-H "Cookie: $PAIRING_COOKIE"} \
		${PAIRING_TOKEN:+-H "X-ContactBox-Token: $PAIRING_TOKEN"} ${3:+--data "$3"} "http://127.0.0.1:8080$2"
}

# setup_phase PHASE: adding an address book on the page is at PHASE (/api/setup, as the paired browser).
setup_phase() {
	page_request GET /api/setup >/dev/null && grep -q "\"phase\":\"$1\"" /tmp/page.body
}

# post_page PATH: a POST to the status page as its own script sends it; prints the HTTP status.
post_page() {
	page_request POST "$1"
}

# paired_now: the page's pairing answer for PAIRING_COOKIE says paired.
paired_now() {
	[ "$(page_request GET /api/pairing)" = 200 ] && grep -q '"pairing":"paired"' /tmp/page.body
}

# unpaired_now: the page's pairing answer for PAIRING_COOKIE (or none) says none.
unpaired_now() {
	[ "$(page_request GET /api/pairing)" = 200 ] && grep -q '"pairing":"none"' /tmp/page.body
}

# pair_with_button: asks to be paired as the page's button does, checks the pairing look (power and sync steady),
# presses the box's button once, and keeps the pairing's cookie and token for post_page.
pair_with_button() {
	PAIRING_COOKIE='' PAIRING_TOKEN=''
	[ "$(page_request POST /api/pairing)" = 202 ] || return 1
	PAIRING_COOKIE=$(tr -d '\r' </tmp/page.headers | sed -n 's/^[Ss]et-[Cc]ookie: \(contactbox_pairing=[0-9a-f]*\);.*/\1/p')
	[ -n "$PAIRING_COOKIE" ] || return 1
	within 5 sh -c "[ \$(level $POWER)\$(level $SYNC)\$(level $ERROR) = 110 ] && [ \$(count_edges $SYNC 0.6) -eq 0 ]" ||
		return 1
	short_press
	within 5 paired_now || return 1
	PAIRING_TOKEN=$(sed -n 's/.*"token":"\([0-9a-f]*\)".*/\1/p' /tmp/page.body)
	[ -n "$PAIRING_TOKEN" ]
}

# status_has PATTERN: /api/status (saved in /tmp/status.json) matches the grep pattern.
status_has() {
	status_json >/tmp/status.json 2>/dev/null
	grep -q "$1" /tmp/status.json
}

# wait_status PATTERN SECONDS: until /api/status matches the grep pattern.
wait_status() {
	within "$2" status_has "$1"
}

# within SECONDS CMD...: runs CMD until it succeeds; fails once SECONDS have passed.
within() {
	_deadline=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$_deadline" ] || return 1
		sleep 0.1
	done
}

# The idle look now: power steady on, sync and error dark, with no edge on power or sync for over a second (a
# sync LED blinking at 2 Hz is dark at two instants half the time: both must be watched, not sampled).
idle_now() {
	[ "$(level "$POWER")$(level "$SYNC")$(level "$ERROR")" = 100 ] &&
		[ "$(count_edges "$SYNC" 0.6)" -eq 0 ] && [ "$(count_edges "$POWER" 0.6)" -eq 0 ] &&
		[ "$(level "$POWER")$(level "$SYNC")$(level "$ERROR")" = 100 ]
}

# idle SECONDS: the idle look within SECONDS.
idle() {
	within "$1" idle_now
}

# All three LEDs dark at the same moment.
dark_now() {
	[ "$(level "$POWER")$(level "$SYNC")$(level "$ERROR")" = 000 ]
}

# dark_before_exit PID: watches the three LEDs, without forking, from now until they read 0 together (success)
# or PID has exited (failure; a zombie counts as exited). Released lines float back to their pull-up (1), so all
# three at 0 can only be the daemon's doing while it still holds them; a poll with forks and sleeps can miss a
# stop that takes half a second. 60 s at most. Once it watches, it creates the file READY when given: start it with
# start_dark_watch.
dark_before_exit() {
	local power sync error p s e now end stat
	_gpio_vm_off "$POWER" && power=$GPIO_VM_SYSFS/sim_gpio$_gpio_vm_o/value
	_gpio_vm_off "$SYNC" && sync=$GPIO_VM_SYSFS/sim_gpio$_gpio_vm_o/value
	_gpio_vm_off "$ERROR" && error=$GPIO_VM_SYSFS/sim_gpio$_gpio_vm_o/value
	read -r now _ </proc/uptime
	end=$((${now%.*} + 60))
	[ -z "${2:-}" ] || : >"$2"
	while [ "${now%.*}" -lt "$end" ] && read -r stat 2>/dev/null <"/proc/$1/stat"; do
		case $stat in *") Z "* | *") X "*) break ;; esac
		read -r p <"$power" && read -r s <"$sync" && read -r e <"$error" && [ "$p$s$e" = 000 ] && return 0
		read -r now _ </proc/uptime
	done
	echo "the LEDs read $p$s$e (power, sync, error) when process $1 was gone" >&2
	return 1
}

# start_dark_watch PID: dark_before_exit PID in the background, returning once it watches, so that the stop asked
# for next cannot be over before it looks (under load, a watcher still starting missed a stop of 1.2 s); sets
# watcher. 10 s at most.
start_dark_watch() {
	rm -f /tmp/dark-watch.ready
	dark_before_exit "$1" /tmp/dark-watch.ready &
	watcher=$!
	_tries=0
	while [ ! -e /tmp/dark-watch.ready ] && [ "$_tries" -lt 200 ]; do
		sleep 0.05
		_tries=$((_tries + 1))
	done
}

# blinking LED: the LED changed at least once in half a second.
blinking() {
	[ "$(count_edges "$1" 0.5)" -gt 0 ]
}

# The LED lines read high (their pull-up) until the daemon takes them as outputs: wait until it drives them (the
# power LED blinks while it starts; the sync LED reads 0) before judging anything.
daemon_drives_leds() {
	within 20 sh -c '[ "$(level '"$SYNC"')" = 0 ] || [ "$(count_edges '"$POWER"' 0.5)" -gt 0 ]'
}

# short_press: a press of a quarter second, as a finger does it.
short_press() {
	press "$BUTTON"
	sleep 0.25
	release "$BUTTON"
}

vcf_count() {
	find "$1" -name '*.vcf' | wc -l
}

# Ends every scenario: the daemon's log when anything failed.
show_log_on_failure() {
	if [ "$GPIO_VM_FAILS" -ne 0 ]; then
		echo "--- contactbox log"
		cat "$LOG"
	fi
}
