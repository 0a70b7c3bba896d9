#!/usr/bin/env bash
# See ContactBox work (the README's first command): build the release binaries, seed ./demo/ with a store of
# sample contacts and a vCard folder standing in for the cloud, then run the appliance daemon on them: the front
# panel is simulated and drawn in the terminal (keys: s = press the sync button, l = long press, q = stop), and
# the status page is at http://127.0.0.1:8080. It syncs at once, then every minute.
#   Deploy/demo.sh                  run until q or Ctrl-C
#   DEMO_SECONDS=20 Deploy/demo.sh  stop by itself after 20 s (SIGTERM), e.g. in a script
# Safe to rerun: each run starts from a fresh demo folder. Extra `swift build` flags may come in SWIFTPM_FLAGS,
# e.g. SWIFTPM_FLAGS="--scratch-path .build-demo" Deploy/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}"

read -ra spm_flags <<<"${SWIFTPM_FLAGS:-}"
echo "Building the release binaries (the first build takes a few minutes) ..."
# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
release_build "${spm_flags[@]}"
contactbox=$CONTACTBOX_BIN

rm -rf demo
mkdir -p demo/cloud
db=demo/contacts.sqlite

# say TEXT: one plain-words line between the commands' own output.
say() { printf '\n== %s\n' "$*"; }

say "$("$contactbox" --version)"
say "Seeding the store $db with Deploy/demo/sample-contacts.vcf ..."
status=0
"$contactbox" import --db "$db" Deploy/demo/sample-contacts.vcf || status=$?
[[ $status -eq 0 || $status -eq 65 ]] || exit "$status"  # 65: a card was skipped, as the sample file intends

say "Seeding the cloud folder demo/cloud/ with two contacts the store does not have yet ..."
for person in "Grace Hopper" "Alan Turing"; do
    uid="demo-cloud-${person// /-}"
    printf 'BEGIN:VCARD\r\nVERSION:3.0\r\nUID:%s\r\nFN:%s\r\nN:%s;%s;;;\r\nEND:VCARD\r\n' \
        "$uid" "$person" "${person#* }" "${person% *}" >"demo/cloud/$uid.vcf"
done
ls demo/cloud

cat >demo/contactbox.toml <<CONF
# The demo's configuration: see Deploy/contactbox.example.toml for every setting.
store = "$PWD/$db"

[sync]
interval = "1m"

[panel]
board = "simulated"      # no GPIO: the LEDs are drawn in the terminal and on the status page

[status]
listen = "127.0.0.1:8080"

[[remote]]
name = "cloud"
kind = "vdir"
folder = "$PWD/demo/cloud"
CONF

say "Starting the appliance. Status page: http://127.0.0.1:8080"
cat <<'HINT'
   Try: edit a file in demo/cloud/ (or delete one) and press s; watch the LEDs and the page.
   The power LED blinks while starting and is steady when all is well; the sync LED blinks while syncing.
HINT
export CONTACTBOX_BOARDS=$PWD/Board
if [[ -n ${DEMO_SECONDS:-} ]]; then
    # --foreground: the daemon keeps the terminal, to draw its panel there.
    timeout --foreground --signal=TERM --preserve-status "$DEMO_SECONDS" "$contactbox" run --config demo/contactbox.toml
    say "The store now holds $("$contactbox" list --db "$db" | wc -l) contacts and demo/cloud/ $(find demo/cloud -name '*.vcf' | wc -l) cards."
else
    exec "$contactbox" run --config demo/contactbox.toml
fi
