# shellcheck shell=bash
# Power cuts (issue 36): runs in the Debian guest of Tests/hardware/gpio-vm (run --guest debian --lossy-disk SEED),
# as root, in bash, after lib.sh, once per boot. Tests/systemd/power-cuts.sh adds the release binaries
# (/opt/vm/bin), the files install.sh needs (/opt/contactbox-src), the cards to upload (/opt/vm/pc/upload-N.vcf),
# sqlite3 (/opt/vm/pc/sqlite3, for the old schema) and /opt/vm/pc/stage.env (Radicale's address on the host, CUT_PLAN: the
# cuts, "OPERATION:MS ...").
#
# Each boot: if the power was cut during an operation (the state on the disk says which), the box is checked: the
# service comes up (READY; the host measures the time from power on), boots to idle or to a state the page
# explains, `contactbox check` passes, a sync ends ok, the store's contacts are the remote's card by card, every
# contact expected is there once, and the runs recorded before the cut are still listed. Then the next operation
# of PLAN is prepared, `sync`ed to the disk, and started with power_cut_after MS: the host kills QEMU MS ms later
# and its disk loses what the guest had not flushed. Operations:
#   download   a fresh store downloads the whole book (the service's start-up sync)
#   upload     100 new contacts imported on the box, uploaded by the service's start-up sync
#   sync       100 contacts changed on the remote, 100 others on the box, synced by the start-up sync
#   undo       `contactbox undo` of an import that changed 100 contacts
#   prune      `contactbox prune-history --max-versions 1`
#   migration  the store taken back to schema 9 (sqlite3), migrated again by the service's first open
#   settings   the box's name saved on the page by a browser paired with the button
# Prints "power-cuts: row I OPERATION MS OUTCOME" after each check, and "power-cuts: ended I MS" when an operation
# ended before its cut.
# The checks pass sh -c scripts in single quotes on purpose: the inner shell expands them.
# shellcheck disable=SC2016
# shellcheck source=Tests/hardware/daemon.sh
. /opt/vm/daemon.sh
# shellcheck source=/dev/null
. /opt/vm/pc/stage.env
src=/opt/contactbox-src
unit=contactbox
cred=/etc/contactbox/radicale.password
db=/var/lib/contactbox/contacts.sqlite
st=/var/lib/power-cuts
mkdir -p "$st"
# the CLI reads the Radicale password as the service does, from a credentials folder
mkdir -p /run/pc-cred
export CREDENTIALS_DIRECTORY=/run/pc-cred

show() { systemctl show -p "$1" --value "$unit"; }
now_ms() { local u; read -r u _ </proc/uptime; echo $((${u%.*} * 1000 + 10#${u#*.} * 10)); }
# durable: the state files on the disk before a cut (a lossy disk keeps only what was flushed)
durable() { sync; }
active() { [ "$(systemctl is-active "$unit")" = active ]; }
sqlite() { LD_LIBRARY_PATH=/opt/vm/pc/lib /opt/vm/pc/sqlite3 "$@"; }

write_box_config() {
	cat >/etc/contactbox/contactbox.toml <<CONF
[sync]
interval = "1h"

[panel]
board = "raspberry-pi-4"

[[remote]]
name = "radicale"
kind = "carddav"
url = "$RADICALE_URL"
username = "alice"
password_credential = "radicale"
allow_insecure_http = true
CONF
}

# normalized FILE.vcf: each card as one line "UID<TAB>property|property|..." (lines unfolded, CRs dropped, each
# property's name and parameters upper-cased - they are case-insensitive, and Radicale writes a card it was sent
# with X-ABLABEL for X-ABLabel -, the properties sorted; PRODID and REV, which a server may rewrite, left out),
# sorted: two books hold the same contacts card by card exactly when these are equal.
normalized() {
	awk '
		{ sub(/\r$/, "") }
		/^[ \t]/ { if (n) { lines[n] = lines[n] substr($0, 2) } next }
		/^BEGIN:VCARD/ { n = 0; uid = ""; next }
		/^END:VCARD/ {
			for (i = 2; i <= n; i++) { v = lines[i]; j = i - 1; while (j > 0 && lines[j] > v) { lines[j + 1] = lines[j]; j-- } lines[j + 1] = v }
			out = ""
			for (i = 1; i <= n; i++) {
				if (lines[i] ~ /^UID:/) uid = substr(lines[i], 5)
				if (lines[i] ~ /^(PRODID|REV)[:;]/) continue
				out = out "|" lines[i]
			}
			print uid "\t" out
			n = 0
			next
		}
		{ c = index($0, ":"); lines[++n] = c ? toupper(substr($0, 1, c - 1)) substr($0, c) : $0 }
	' "$1" | LC_ALL=C sort
}

# synced_since_start: a sync run of this daemon has ended (its counters start at 0 with each start), and it is idle
synced_since_start() {
	curl -s --max-time 5 http://127.0.0.1:8080/metrics |
		awk '$1 ~ /^contactbox_sync_runs_total/ { n += $2 } END { exit !(n >= 1) }' && status_has '"state":"idle"'
}

# converged: the store's export and the remote's book (Radicale answers a GET of the book with every card) hold the
# same cards; every UID of $st/expected is there once, no other.
converged() {
	local ok=0
	rm -f /tmp/local.vcf /tmp/remote.vcf
	contactbox export --db "$db" --out /tmp/local.vcf 2>/tmp/export.err || { sed 's/^/  | /' /tmp/export.err; return 1; }
	curl -s --max-time 120 -u "alice:$RADICALE_PASSWORD" -o /tmp/remote.vcf "$RADICALE_URL" || return 1
	normalized /tmp/local.vcf >/tmp/local.norm
	normalized /tmp/remote.vcf >/tmp/remote.norm
	cut -f1 /tmp/local.norm >/tmp/local.uids
	echo "compared: $(wc -l </tmp/local.norm) cards here, $(wc -l </tmp/remote.norm) on the remote, $(wc -l <"$st/expected") expected"
	if ! cmp -s /tmp/local.norm /tmp/remote.norm; then
		echo "  cards that differ (< here, > remote), the first 5:"
		diff /tmp/local.norm /tmp/remote.norm | grep '^[<>]' | cut -c1-150 | sed -n '1,5s/^/  | /p'
		ok=1
	fi
	if [ -n "$(uniq -d /tmp/local.uids)" ]; then
		echo "  UIDs twice: $(uniq -d /tmp/local.uids | sed -n 1,5p | paste -sd' ')"
		ok=1
	fi
	if ! cmp -s /tmp/local.uids "$st/expected"; then
		echo "  UIDs missing (<) or not expected (>), the first 5:"
		diff /tmp/local.uids "$st/expected" | grep '^[<>]' | sed -n '1,5s/^/  | /p'
		ok=1
	fi
	return "$ok"
}

# runs_kept: every run listed before the cut ($st/runs) is still listed
runs_kept() {
	contactbox runs --db "$db" --limit 100000 --json | sed -n 's/.*"id":\([0-9]*\).*/\1/p' | LC_ALL=C sort >/tmp/runs.now
	[ -z "$(comm -23 "$st/runs" /tmp/runs.now)" ]
}
save_runs() { contactbox runs --db "$db" --limit 100000 --json | sed -n 's/.*"id":\([0-9]*\).*/\1/p' | LC_ALL=C sort >"$st/runs"; }

# note_check MSG CMD...: check, and remember a failure for the row
note_check() { local m=$1; shift; if "$@"; then pass "cut $i ($op at $ms ms): $m"; else fail "cut $i ($op at $ms ms): $m"; bad="${bad:+$bad, }$m"; fi; }

# ---- Boot 1: install as a household does, configure the host's Radicale book, and let it download once
if [ ! -e "$st/installed" ]; then
	if bash "$src/Deploy/install.sh" --bin /opt/vm/bin --board raspberry-pi-4 --hostname contactbox \
		>/tmp/install.log 2>&1; then
		pass "install.sh --bin installs and starts the service"
	else
		fail "install.sh --bin installs and starts the service"
		sed 's/^/  install: /' /tmp/install.log
	fi
	systemctl stop "$unit"
	write_box_config
	install -m 600 -o root -g root /dev/null "$cred"
	printf '%s\n' "$RADICALE_PASSWORD" >"$cred"
	mkdir -p /etc/systemd/system/$unit.service.d
	printf '[Service]\nLoadCredential=radicale:%s\n' "$cred" >/etc/systemd/system/$unit.service.d/credential.conf
	systemctl daemon-reload
	LC_ALL=C sort /opt/vm/pc/expected.uids >"$st/expected"
	: >"$st/runs"
	echo 0 >"$st/next"
	: >"$st/installed"
fi
install -m 600 "$cred" /run/pc-cred/radicale

read -r -a plan <<<"$CUT_PLAN"
i=$(cat "$st/next")

# ---- After a cut: the checks
if [ -e "$st/armed" ]; then
	read -r op ms <"$st/armed"
	bad=""
	echo "power-cuts: boot $GPIO_VM_BOOT after cut $i: $op at $ms ms"
	note_check "the service is active (READY) after the power came back" within 300 active
	ready=$(show ActiveEnterTimestampMonotonic)
	if [ "$ready" -gt 0 ]; then
		since=$(($(now_ms) - ready / 1000))
		echo "READY at uptime $((ready / 1000)) ms (the daemon started at $(($(show ExecMainStartTimestampMonotonic) / 1000)) ms)"
		on_host "ready-$i-$since" 30 || true
	fi
	# idle, or a state the page explains (its summary and advice)
	if within "$SYNC_BOUND_S" synced_since_start; then
		pass "cut $i ($op at $ms ms): the box's start-up sync ends, and it comes to idle"
	else
		status_json >/tmp/status.json
		echo "  status: $(cut -c1-400 /tmp/status.json)"
		if grep -q '"state":"attention"' /tmp/status.json && ! grep -q '"advice":null' /tmp/status.json; then
			pass "cut $i ($op at $ms ms): the box is in a state its page explains"
			bad="${bad:+$bad, }attention"
		else
			fail "cut $i ($op at $ms ms): the box comes to idle, or to a state its page explains"
			bad="${bad:+$bad, }not idle"
		fi
	fi
	if [ "$op" = migration ]; then
		note_check "the migration is done: schema 11, no fill-in pending" within 120 sh -c \
			'[ "$(LD_LIBRARY_PATH=/opt/vm/pc/lib /opt/vm/pc/sqlite3 "file:'"$db"'?mode=ro" "PRAGMA user_version; SELECT count(*) FROM search_pending;" | paste -sd" ")" = "11 0" ]'
	fi
	if [ "$op" = settings ]; then
		note_check "settings.toml holds the name before or after the save" sh -c \
			'grep -qE "^(name = \"'"$(cat "$st/name.before")"'\"|name = \"'"$(cat "$st/name.after")"'\")" /var/lib/contactbox/settings.toml ||
			{ [ "$(cat '"$st"'/name.before)" = none ] && ! grep -q "^name = \"pc" /var/lib/contactbox/settings.toml; }'
	fi
	systemctl stop "$unit"
	if contactbox check --db "$db" >/tmp/check.txt 2>&1; then
		pass "cut $i ($op at $ms ms): contactbox check passes"
	else
		fail "cut $i ($op at $ms ms): contactbox check passes"
		bad="${bad:+$bad, }check"
		sed 's/^/  | /' /tmp/check.txt | head -n 20
	fi
	if contactbox sync --db "$db" >/tmp/sync.txt 2>&1; then
		pass "cut $i ($op at $ms ms): the next sync ends ok"
	else
		fail "cut $i ($op at $ms ms): the next sync ends ok (exit $?)"
		bad="${bad:+$bad, }sync"
		sed 's/^/  | /' /tmp/sync.txt | tail -n 10
	fi
	note_check "the store and the remote hold the same cards, each expected contact once" converged
	if [ "$op" = undo ]; then
		n=$(grep -c "^X-BENCH-EDIT:undo-$i" /tmp/local.vcf || true)
		echo "cards with the edit the undo takes back: $n of $(cat "$st/edits")"
		note_check "the undo was done whole or not at all" test "$n" = 0 -o "$n" = "$(cat "$st/edits")"
	fi
	if [ "$op" != prune ]; then note_check "every run recorded before the cut is still listed" runs_kept; fi
	note_check "contactbox history reads the latest changes" sh -c "contactbox history --db $db >/dev/null"
	echo "power-cuts: row $i $op $ms ${bad:-ok}"
	rm -f "$st/armed"
	i=$((i + 1))
	echo "$i" >"$st/next"
	durable
fi

[ "$i" -lt "${#plan[@]}" ] || exit 0

# ---- The next cut
op=${plan[$i]%%:*}
ms=${plan[$i]#*:}
echo "power-cuts: cut $i of ${#plan[@]}: $op, the power cut $ms ms after it starts"
systemctl stop "$unit" 2>/dev/null || true
[ ! -s "$db" ] || save_runs
start_op="systemctl start --no-block $unit"
case $op in
download)
	# a fresh store: its runs start anew
	rm -f "$db" "$db-wal" "$db-shm"
	: >"$st/runs"
	;;
upload)
	contactbox import --db "$db" "/opt/vm/pc/upload-$i.vcf" >/dev/null 2>&1
	sed -n 's/^UID:\(.*\)\r*$/\1/p' "/opt/vm/pc/upload-$i.vcf" | tr -d '\r' | cat - "$st/expected" | LC_ALL=C sort >"$st/expected.new"
	mv "$st/expected.new" "$st/expected"
	;;
sync | undo)
	# 1 % of the contacts (every 100th) edited on the box (an X-BENCH-EDIT line each, as the host's edits have), by import --update
	contactbox export --db "$db" --out /tmp/all.vcf 2>/dev/null
	awk -v note="$op-$i" -v step=100 -v off=$((i % 100)) '
		/^BEGIN:VCARD/ { n++ }
		(n % step) == off && /^END:VCARD/ { print "X-BENCH-EDIT:" note "\r" }
		(n % step) == off { print }
	' /tmp/all.vcf >/tmp/edits.vcf
	contactbox import --db "$db" --update /tmp/edits.vcf >/dev/null 2>&1
	grep -c '^BEGIN:VCARD' /tmp/edits.vcf >"$st/edits"
	if [ "$op" = sync ]; then
		on_host "edit-remote-$i" 300 || fail "cut $i: the host changes 100 contacts on the remote"
	else
		run=$(contactbox runs --db "$db" --limit 1 --json | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
		start_op="contactbox undo --db $db $run"
	fi
	;;
prune)
	start_op="contactbox prune-history --db $db --max-versions 1"
	;;
migration)
	# exactly schema 9's store: schema 10's and 11's objects dropped, schema 9's name index, its fill-in done
	sqlite "$db" <<'SQL'
DROP TABLE clock_unset;
DROP TRIGGER contacts_search_inserted;
DROP TRIGGER contacts_search_updated;
DROP TRIGGER contacts_search_deleted;
DROP TABLE contacts_search;
DROP INDEX contacts_live_name;
ALTER TABLE contacts DROP COLUMN list_phone;
ALTER TABLE contacts DROP COLUMN list_email;
ALTER TABLE contacts DROP COLUMN list_photo;
CREATE INDEX contacts_live_name ON contacts (display_name COLLATE NOCASE, id, search_text, search_phones) WHERE deleted = 0;
DELETE FROM search_pending;
PRAGMA user_version = 9;
SQL
	check "cut $i: the store is at schema 9" test "$(sqlite "$db" 'PRAGMA user_version')" = 9
	;;
settings)
	systemctl start "$unit"
	within 300 status_has '"state":"idle"' || true
	check "cut $i: a browser is paired by the button" pair_with_button
	page_request GET /api/settings >/dev/null
	version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' /tmp/page.body)
	sed -n 's/^name = "\(pc[0-9]*\)"$/\1/p' /var/lib/contactbox/settings.toml 2>/dev/null | head -n 1 >"$st/name.before"
	[ -s "$st/name.before" ] || echo none >"$st/name.before"
	echo "pc$i" >"$st/name.after"
	start_op="page_request POST /api/settings action=box-name&value=pc$i&version=$version"
	;;
*)
	fail "cut $i: unknown operation $op"
	exit 0
	;;
esac
echo "$op $ms" >"$st/armed"
durable
started=$(now_ms)
power_cut_after "$ms"
$start_op >/tmp/op.out 2>&1 || echo "  (the operation exited $?: $(head -c 300 /tmp/op.out))"
# an operation of the service: ended when the start-up sync has
case $op in download | upload | sync | migration) within 900 synced_since_start || true ;; esac
echo "power-cuts: ended $i $(($(now_ms) - started))"
sleep 1200
fail "cut $i: the power was not cut"
