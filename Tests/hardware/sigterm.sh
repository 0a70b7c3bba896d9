# SIGTERM in the middle of a sync: the LEDs go dark at once, the chunk commits, exit 0 within 5 s, and the next
# start finishes the job.
. /opt/vm/daemon.sh
write_config /var/lib/nas
contactbox import --db /var/lib/contactbox/contacts.sqlite /opt/vm/contacts.vcf >/dev/null 2>&1
expected=$(contactbox list --db /var/lib/contactbox/contacts.sqlite | wc -l)
start_daemon
check "the start-up sync runs: sync LED on" wait_level "$SYNC" 1 20
kill -TERM "$pid"
check "the LEDs go dark while it stops" sh -c "wait_level $POWER 0 2 && wait_level $SYNC 0 2 && wait_level $ERROR 0 2"
started=$(date +%s)
wait "$pid"
rc=$?
took=$(($(date +%s) - started))
check "exits 0 on SIGTERM" test "$rc" -eq 0
check "within 5 s ($took s)" test "$took" -le 5
sent=$(vcf_count /var/lib/nas)
echo "sent before the stop: $sent of $expected"
check "the store is consistent" contactbox check --db /var/lib/contactbox/contacts.sqlite
start_daemon
check "the next start finishes the sync" idle 90
check "every contact reached the folder" test "$(vcf_count /var/lib/nas)" -eq "$expected"
stop_daemon
check "exits 0 again" test "$rc" -eq 0
show_log_on_failure
