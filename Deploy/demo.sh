#!/usr/bin/env bash
# See ContactBox work (the README's first command): build the release binary,
# then, in ./demo/, import the sample contacts, list them, show one, export them
# to a folder and to one file, and check the store. Safe to rerun: each run starts
# from an empty store. Extra `swift build` flags may come in SWIFTPM_FLAGS, e.g.
#   SWIFTPM_FLAGS="--scratch-path .build-demo" Deploy/demo.sh
# (A later issue turns this into starting the appliance daemon.)
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
apt_ensure "${BUILD_PACKAGES[@]}"

read -ra spm_flags <<<"${SWIFTPM_FLAGS:-}"
echo "Building the release binary (the first build takes a few minutes) ..."
# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
release_build "${spm_flags[@]}"
contactbox=$CONTACTBOX_BIN

sample=Deploy/demo/sample-contacts.vcf
db=demo/contacts.sqlite
rm -rf demo/export demo/export.vcf "$db" "$db-wal" "$db-shm"
mkdir -p demo/export

# say TEXT: one plain-words line between the commands' own output.
say() { printf '\n== %s\n' "$*"; }

say "$("$contactbox" --version)"

say "Importing $sample into $db (25 cards, one of them an exact duplicate) ..."
status=0
"$contactbox" import --db "$db" "$sample" || status=$?
case $status in
    0) ;;
    65) echo "(some cards were skipped: see the messages above)" ;;
    *) exit "$status" ;;
esac

say "Listing every contact in the store:"
"$contactbox" list --db "$db"

say "Searching for 'Weber':"
"$contactbox" list --db "$db" --search Weber

say "Showing one contact in full (UID demo-0015, with a photo and Japanese text):"
"$contactbox" show --db "$db" demo-0015

say "Exporting one .vcf per contact into demo/export/ ..."
"$contactbox" export --db "$db" --out demo/export/
echo "demo/export/ now holds $(find demo/export -name '*.vcf' | wc -l) files."

say "Exporting every contact into the single file demo/export.vcf ..."
"$contactbox" export --db "$db" --out demo/export.vcf
echo "demo/export.vcf holds $(grep -c '^BEGIN:VCARD' demo/export.vcf) cards."

say "Syncing with a vCard folder standing in for the cloud (demo/cloud/) ..."
cat >demo/contactbox.toml <<CONF
store = "$PWD/$db"

[[remote]]
name = "cloud"
kind = "vdir"
folder = "$PWD/demo/cloud"
create_folder = true
CONF
rm -rf demo/cloud
"$contactbox" sync --config demo/contactbox.toml
echo "demo/cloud/ now holds $(find demo/cloud -name '*.vcf' | wc -l) cards. Edit one there and sync again:"
sed -i 's/^FN:Kenji Watanabe/FN:Kenji Watanabe (edited in the cloud)/' demo/cloud/demo-0015.vcf
"$contactbox" sync --config demo/contactbox.toml
"$contactbox" list --db "$db" --search Kenji

say "Checking the store ..."
"$contactbox" check --db "$db"

say "Done. The store is $db; rerun this script any time to start over."
