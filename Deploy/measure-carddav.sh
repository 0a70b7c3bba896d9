#!/usr/bin/env bash
# Measures how a CardDAV server behaves, with curl only, against one empty address book
# it may write to (it creates and deletes items named m-*.vcf):
#   Deploy/measure-carddav.sh BOOK-URL [USER PASSWORD]
# Prints one "behaviour: value" line each; Docs/servers.md has the results for
# Radicale, Xandikos and Cyrus, and says how each was started.
set -uo pipefail

book=${1:?usage: measure-carddav.sh BOOK-URL [USER PASSWORD]}
[[ $book == */ ]] || book="$book/"
auth=()
[[ $# -ge 3 ]] && auth=(-u "$2:$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

req() { # METHOD URL [curl options...]: prints the status; the head in $work/head, the body in $work/body
    local method=$1 url=$2
    shift 2
    curl -s "${auth[@]}" -X "$method" -D "$work/head" -o "$work/body" -w '%{http_code}' --max-time 300 "$@" "$url"
}
header() { # NAME: the header's value in the last response
    grep -i "^$1:" "$work/head" | tail -n 1 | cut -d: -f2- | tr -d '\r' | sed 's/^ *//'
}
card() { # UID [VERSION [EXTRA-LINE...]]
    local uid=$1 version=${2:-3.0}
    shift 2 || shift $#
    printf 'BEGIN:VCARD\r\nVERSION:%s\r\n' "$version"
    [[ -n $uid ]] && printf 'UID:%s\r\n' "$uid"
    printf 'FN:Measure %s\r\nN:%s;Measure;;;\r\n' "$uid" "$uid"
    local line
    for line in "$@"; do printf '%s\r\n' "$line"; done
    printf 'END:VCARD\r\n'
}
put() { # NAME FILE [curl options...]
    local name=$1 file=$2
    shift 2
    req PUT "$book$name" -H 'Content-Type: text/vcard; charset=utf-8' --data-binary "@$file" "$@"
}
xmlreq() { # METHOD URL DEPTH BODY
    req "$1" "$2" -H 'Content-Type: application/xml; charset=utf-8' -H "Depth: $3" --data-binary "$4"
}

PNG='iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

# --- The collection ---------------------------------------------------------------
xmlreq PROPFIND "$book" 0 '<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav" xmlns:CS="http://calendarserver.org/ns/"><D:prop><C:supported-address-data/><C:max-resource-size/><D:sync-token/><CS:getctag/></D:prop></D:propfind>' >/dev/null
echo "supported-address-data: $(grep -o '<[^>]*\(address-data-type\|content-type\)[^>]*>' "$work/body" | tr '\n' ' ')"
echo "max-resource-size: $(grep -o 'max-resource-size>[^<]*' "$work/body" | cut -d'>' -f2)"
echo "sync-token: $(grep -o 'sync-token>[^<]*' "$work/body" | head -n 1 | cut -d'>' -f2)"
echo "getctag: $(grep -o 'getctag>[^<]*' "$work/body" | head -n 1 | cut -d'>' -f2)"
echo "PROPFIND without Depth: $(xmlreq PROPFIND "$book" '' '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>' -H 'Depth;')"

# --- Writes and their preconditions -------------------------------------------------
card m-1 3.0 'TEL;TYPE=CELL:+49 170 5550100' 'NOTE:one\, two\nthree' >"$work/m1"
echo "PUT new, If-None-Match *: $(put m-1.vcf "$work/m1" -H 'If-None-Match: *'), ETag in answer: $(header ETag)"
echo "PUT again, If-None-Match *: $(put m-1.vcf "$work/m1" -H 'If-None-Match: *')"
echo "PUT overwrite, no precondition: $(put m-1.vcf "$work/m1"), ETag in answer: $(header ETag)"
echo "PUT, stale If-Match: $(put m-1.vcf "$work/m1" -H 'If-Match: "stale"')"
echo "PUT, If-Match on a missing item: $(put m-missing.vcf "$work/m1" -H 'If-Match: "stale"')"
echo "GET: $(req GET "$book"m-1.vcf), ETag: $(header ETag), Content-Type: $(header Content-Type)"
echo "3.0 card as stored (GET):"
tr -d '\r' <"$work/body" | sed 's/^/    /'
echo "DELETE, stale If-Match: $(req DELETE "$book"m-1.vcf -H 'If-Match: "stale"')"
echo "PUT same UID at a second href: $(put m-1-copy.vcf "$work/m1" -H 'If-None-Match: *')"
req DELETE "$book"m-1-copy.vcf >/dev/null
card '' 3.0 >"$work/nouid"
echo "PUT card without UID: $(put m-nouid.vcf "$work/nouid" -H 'If-None-Match: *') $(head -c 200 "$work/body" | tr '\n\r' '  ')"
req DELETE "$book"m-nouid.vcf >/dev/null
printf 'BEGIN:VCARD\r\nVERSION:3.0\r\nUID:m-nofn\r\nEMAIL:nofn@example.org\r\nEND:VCARD\r\n' >"$work/nofn"
echo "PUT card without FN and N: $(put m-nofn.vcf "$work/nofn" -H 'If-None-Match: *') $(head -c 200 "$work/body" | tr '\n\r' '  ')"
req DELETE "$book"m-nofn.vcf >/dev/null
printf 'BEGIN:VCARD\r\nVERSION:3.0\r\nUID:m-broken\r\nFN:Broken\r\nPHOTO;ENCODING=b;TYPE=JPEG:!!!not base64!!!\r\nEND:VCARD\r\n' >"$work/broken"
echo "PUT card with broken base64 PHOTO: $(put m-broken.vcf "$work/broken" -H 'If-None-Match: *')"
req DELETE "$book"m-broken.vcf >/dev/null

# --- vCard 4.0: what comes back ----------------------------------------------------
card m-4 4.0 "PHOTO:data:image/png;base64,$PNG" 'KIND:individual' 'TEL;VALUE=uri;TYPE=cell:tel:+49-170-5550101' >"$work/m4"
echo "PUT 4.0 card with a data: PHOTO: $(put m-4.vcf "$work/m4" -H 'If-None-Match: *')"
req GET "$book"m-4.vcf >/dev/null
echo "4.0 card, GET without Accept:"
tr -d '\r' <"$work/body" | sed 's/^/    /'
req GET "$book"m-4.vcf -H 'Accept: text/vcard; version=4.0' >/dev/null
echo "4.0 card, GET with Accept version=4.0: VERSION $(grep -o '^VERSION:[0-9.]*' "$work/body" | tr -d '\r'), $(grep '^PHOTO' "$work/body" | cut -c1-60 | tr -d '\r')"
multiget() { # ADDRESS-DATA-ELEMENT
    xmlreq REPORT "$book" 1 "<?xml version=\"1.0\"?><C:addressbook-multiget xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:carddav\"><D:prop><D:getetag/>$1</D:prop><D:href>/${book#*://*/}m-4.vcf</D:href></C:addressbook-multiget>" >/dev/null
    echo "$(grep -o 'VERSION:[0-9.]*' "$work/body" | head -n 1), $(grep -o 'PHOTO[^&<]*' "$work/body" | head -n 1 | cut -c1-60)"
}
echo "4.0 card, multiget <address-data/>: $(multiget '<C:address-data/>')"
echo "4.0 card, multiget version=4.0: $(multiget '<C:address-data content-type="text/vcard" version="4.0"/>')"

# --- Sync tokens ----------------------------------------------------------------------
sync() { # TOKEN
    xmlreq REPORT "$book" 1 "<?xml version=\"1.0\"?><D:sync-collection xmlns:D=\"DAV:\"><D:sync-token>$1</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>"
}
sync '' >/dev/null
token=$(grep -o 'sync-token>[^<][^<]*' "$work/body" | tail -n 1 | cut -d'>' -f2)
echo "sync-collection token: $token"
card m-5 3.0 >"$work/m5"
put m-5.vcf "$work/m5" >/dev/null
req DELETE "$book"m-5.vcf >/dev/null
req DELETE "$book"m-4.vcf >/dev/null
sync "$token" >/dev/null
echo "since that token, after m-5 created and deleted and m-4 deleted: $(grep -o '<[^>]*href>[^<]*' "$work/body" | sed 's/.*>//' | tr '\n' ' ')| statuses $(grep -o 'HTTP/1.1 [0-9]*' "$work/body" | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
echo "sync-collection with a bogus token: $(sync 'http://example.org/bogus-token-1')$(grep -o 'valid-sync-token' "$work/body" | head -n 1 | sed 's/^/ /')"

# --- Overlapping writes: 16 updates of one card, 8 at a time ---------------------------
card m-6 3.0 >"$work/m6"
put m-6.vcf "$work/m6" >/dev/null
codes=$(seq 16 | xargs -P 8 -I{} curl -s "${auth[@]}" -o /dev/null -w '%{http_code}\n' -X PUT \
    -H 'Content-Type: text/vcard' --data-binary "@$work/m6" "$book"m-6.vcf | sort | uniq -c | tr -s ' ' | tr '\n' ',')
echo "16 overlapping PUTs of one card: $codes"
for n in $(seq 16); do sed "s/m-6/m-7-$n/" "$work/m6" >"$work/m7-$n"; done
codes=$(seq 16 | xargs -P 8 -I{} curl -s "${auth[@]}" -o /dev/null -w '%{http_code}\n' -X PUT \
    -H 'Content-Type: text/vcard' --data-binary "@$work/m7-{}" "${book}m-7-{}.vcf" | sort | uniq -c | tr -s ' ' | tr '\n' ',')
echo "16 overlapping PUTs of different new cards: $codes"
codes=$(seq 16 | xargs -P 8 -I{} curl -s "${auth[@]}" -o /dev/null -w '%{http_code}\n' -X PUT \
    -H 'Content-Type: text/vcard' --data-binary "@$work/m7-{}" "${book}m-7-{}.vcf" | sort | uniq -c | tr -s ' ' | tr '\n' ',')
echo "16 overlapping PUTs updating different cards: $codes"
for n in $(seq 16); do req DELETE "${book}m-7-$n.vcf" >/dev/null; done
req DELETE "$book"m-6.vcf >/dev/null

# --- Size ------------------------------------------------------------------------------
for size in 1 5; do
    { card m-big 3.0; } | sed '$d' >"$work/big"
    printf 'NOTE:%s\r\nEND:VCARD\r\n' "$(head -c $((size * 1024 * 1024)) /dev/zero | tr '\0' x)" >>"$work/big"
    start=$(date +%s.%N)
    status=$(put m-big.vcf "$work/big")
    echo "PUT a ${size} MiB card: $status in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
    req DELETE "$book"m-big.vcf >/dev/null
done

# --- Login ------------------------------------------------------------------------------
if [[ ${#auth[@]} -gt 0 ]]; then
    echo "wrong password: $(curl -s -o /dev/null -w '%{http_code}' -u "$2:wrong" -X PROPFIND -H 'Depth: 0' "$book"), $(curl -s -D - -o /dev/null -u "$2:wrong" -X PROPFIND -H 'Depth: 0' "$book" | grep -i '^www-authenticate' | tr -d '\r' | tr '\n' ' ')"
fi

req DELETE "$book"m-1.vcf >/dev/null  # leave the book as it was
