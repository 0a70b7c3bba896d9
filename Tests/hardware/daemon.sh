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
	wget -q -O - http://127.0.0.1:8080/api/status
}

# wait_status PATTERN SECONDS: until /api/status matches the grep pattern.
wait_status() {
	i=0
	while [ "$i" -lt $(($2 * 5)) ]; do
		status_json 2>/dev/null | grep -q "$1" && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# idle SECONDS: the idle look within SECONDS: power steady on, sync and error dark.
idle() {
	wait_level "$POWER" 1 "$1" && wait_level "$SYNC" 0 "$1" && wait_level "$ERROR" 0 "$1" &&
		[ "$(count_edges "$POWER" 1)" -eq 0 ] && [ "$(level "$SYNC")" -eq 0 ] && [ "$(level "$ERROR")" -eq 0 ]
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
