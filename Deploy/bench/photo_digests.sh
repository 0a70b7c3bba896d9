#!/bin/sh
# The photos of vCards, as one line per card: its UID and the SHA-256 of its PHOTO's bytes (decoded from base64,
# unfolded: "-" for a card without one; a value that is not base64 gives a digest that matches no photo), sorted by UID. Two books hold
# the same photos byte for byte when their lines are equal, whatever their folding or vCard version (3.0
# `PHOTO;ENCODING=b;...:` or 4.0 `PHOTO:data:...;base64,`). Reads .vcf files and folders of them (every file not hidden: a Radicale collection); streams, a
# photo at a time through base64 and sha256sum. POSIX sh and awk (mawk too): it also runs in the systemd VM's guest
# (Tests/systemd/scenario.sh). Used by Deploy/bench/photos.sh.
#   Deploy/bench/photo_digests.sh BOOK.vcf|FOLDER...
set -eu
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for source in "$@"; do
    if [ -d "$source" ]; then
        find "$source" -maxdepth 1 -type f ! -name '.*' -exec cat {} +
    else
        cat "$source"
    fi
done | awk -v tmp="$tmp" '
    function finish() {
        if (!photo) return
        close(decode)
        digest = "none"
        if ((getline line < tmp) > 0) digest = substr(line, 1, 64)
        close(tmp)
        photo = 0
    }
    BEGIN { decode = "base64 -d 2>/dev/null | sha256sum >\"" tmp "\"" }
    { sub(/\r$/, "") }
    /^[ \t]/ { if (photo) printf "%s", substr($0, 2) | decode; next }
    { finish() }
    toupper($0) ~ /^BEGIN:VCARD/ { uid = ""; digest = "-"; next }
    toupper($0) ~ /^UID[;:]/ { uid = substr($0, index($0, ":") + 1); next }
    toupper($0) ~ /^PHOTO[;:]/ && digest == "-" {
        value = substr($0, index($0, ":") + 1)
        if (value ~ /^data:/) value = substr(value, index(value, ",") + 1)
        photo = 1
        printf "%s", value | decode
        next
    }
    toupper($0) ~ /^END:VCARD/ { print uid, digest }
' | LC_ALL=C sort
