# SIGTERM in the middle of a sync: the LEDs go dark at once, the chunk commits, exit 0 within 5 s, and the next
# start finishes the job.
. /opt/vm/daemon.sh
write_config /var/lib/nas
# Many contacts, so that the start-up sync lasts a while.
contactbox import --db /var/lib/contactbox/contacts.sqlite /opt/vm/many-contacts.vcf >/dev/null 2>&1
expected=$(contactbox list --db /var/lib/contactbox/contacts.sqlite | wc -l)
start_daemon
check "the daemon drives the LEDs" daemon_drives_leds
check "the start-up sync runs: files arrive" within 60 sh -c '[ "$(find /var/lib/nas -name "*.vcf" | wc -l)" -gt 0 ]'
start_dark_watch "$pid"
started=$(date +%s)
kill -TERM "$pid"
check "the LEDs go dark while it stops, before it lets go of them" wait "$watcher"
wait "$pid"
rc=$?
took=$(($(date +%s) - started))
check "exits 0 on SIGTERM" test "$rc" -eq 0
check "within 5 s ($took s)" test "$took" -le 5
sent=$(vcf_count /var/lib/nas)
echo "sent before the stop: $sent of $expected"
check "stopped in the middle" test "$sent" -lt "$expected"
check "the store is consistent" contactbox check --db /var/lib/contactbox/contacts.sqlite
start_daemon
check "the next start finishes the sync" within 120 sh -c '[ "$(find /var/lib/nas -name "*.vcf" | wc -l)" -eq '"$expected"' ]'
check "then idle" idle 30
stop_daemon
check "exits 0 again" test "$rc" -eq 0
show_log_on_failure
