#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs each for a set time. See --help.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    cat <<'EOF'
Usage: Deploy/fuzz.sh [TARGET...]

Builds the libFuzzer targets of Fuzz/ (a package of their own, built with
swift build -c release -Xswiftc '-sanitize=fuzzer,address') and runs each for
FUZZ_SECONDS, from a corpus seeded with the tests' files. Targets (default: all):

  FuzzVCard          the vCard reader (import, sync), with the write-read round trip
  FuzzMultistatus    the WebDAV multistatus parser, fed in chunks cut by the fuzzer
  FuzzTOML           the configuration and board files (TOML, then settings)
  FuzzStatusRequest  the status server's handling of requests (routing, password, origin)

Prints per target the executions, executions per second and crashes, and exits 1
if any target crashed, naming the input that did (run the target binary with that
file as its argument to reproduce). Docs/fuzzing.md says how to run them long.

Environment:
  FUZZ_SECONDS   seconds per target (default 60)
  FUZZ_DIR       scratch directory for the corpora, logs and crash inputs (default
                 ${TMPDIR:-/tmp}/contactbox-fuzz); corpora grow from run to run
EOF
}

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi

seconds=${FUZZ_SECONDS:-60}
work=${FUZZ_DIR:-${TMPDIR:-/tmp}/contactbox-fuzz}
all=(FuzzVCard FuzzMultistatus FuzzTOML FuzzStatusRequest)
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${all[@]}")
for target in "${targets[@]}"; do
    [[ " ${all[*]} " == *" $target "* ]] || { echo "fuzz: no target $target (see --help)" >&2; exit 2; }
done

echo "fuzz: building ${targets[*]}"
# Given `--sanitize=fuzzer --sanitize=address`, SwiftPM passes two -sanitize options in no fixed order and swiftc 6.3
# keeps only the last: a build had either no coverage or no ASan checks (seen both). So one option with both, last;
# --sanitize=fuzzer stays for SwiftPM, which then compiles the targets as libraries and links libFuzzer's main.
build=(swift build --package-path Fuzz -c release --sanitize=fuzzer -Xswiftc '-sanitize=fuzzer,address')
for target in "${targets[@]}"; do
    "${build[@]}" --product "$target" 2>&1 | grep -E 'error|warning: [^C]' || true
    [[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "fuzz: the build of $target failed" >&2; exit 1; }
done
bin=$("${build[@]}" --show-bin-path)

# --- Seeds: the tests' files, copied into the scratch corpus each run ----------------------------
# Swift multi-line string literals (""" ... """) of a test file, one seed file each, with their indentation
# and line continuations undone; interpolations stay as written, which is as good a seed.
swift_literals() { # FILE DIRECTORY PREFIX-BYTES
    awk -v dir="$2" -v prefix="$3" -v base="$(basename "$1" .swift)" '
        !inside && /"""$/ { inside = 1; text = ""; next }
        inside && /^[ \t]*"""/ {
            inside = 0; n++
            indent = $0; sub(/""".*/, "", indent)
            gsub("\n" indent, "\n", text); sub("^" indent, "", text)
            gsub(/\\\n/, "", text); gsub(/\\"/, "\"", text); gsub(/\\\\/, "\\", text)
            file = dir "/" base "-" n
            printf "%s%s", prefix, text > file; close(file); next
        }
        inside { text = text $0 "\n" }
    ' "$1"
}

seed() { # TARGET DIRECTORY
    case $1 in
    FuzzVCard)
        cp Tests/VCardTests/Corpus/*.vcf Tests/VCardTests/Corpus/*/*.vcf "$2"/
        for file in Tests/VCardTests/*.swift; do swift_literals "$file" "$2" ""; done
        ;;
    FuzzMultistatus)
        # Three leading bytes choose the cut (here at byte 64) and the later chunks' size (here the rest whole).
        for file in Tests/CardDAVTests/*.swift Tests/CardDAVTests/Fixtures/*.swift; do
            swift_literals "$file" "$2" $'\x00\x40\x00'
        done
        ;;
    FuzzTOML)
        cp Deploy/contactbox.example.toml "$2"/
        for file in Board/*.toml; do cp "$file" "$2/board-$(basename "$file")"; done
        for file in Tests/ConfigTests/*.swift; do swift_literals "$file" "$2" ""; done
        ;;
    FuzzStatusRequest)
        # The first byte picks the server: odd, the one with the password "fuzz-secret" (dXNlcjpmdXp6LXNlY3JldA==).
        local auth='Authorization: Basic dXNlcjpmdXp6LXNlY3JldA==\r\n' n=0 request
        for request in 'GET / HTTP/1.1\r\nHost: box\r\n\r\n' 'HEAD /api/status HTTP/1.1\r\nHost: box\r\n\r\n' \
            'GET /metrics HTTP/1.0\r\n\r\n' 'GET /nothing?x=1 HTTP/1.1\r\nHost: box\r\n\r\n' \
            'POST /api/sync HTTP/1.1\r\nHost: box:8080\r\nOrigin: http://box:8080\r\nContent-Length: 0\r\n\r\n' \
            'POST /api/sync HTTP/1.1\r\nHost: box\r\nOrigin: https://evil.example\r\nSec-Fetch-Site: cross-site\r\n\r\n' \
            'POST /api/sync HTTP/1.1\r\nHost: box\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n' \
            "GET /api/status HTTP/1.1\r\nHost: box\r\n$auth\r\n" "POST /api/sync HTTP/1.1\r\nHost: b\r\n$auth\r\n"; do
            n=$((n + 1))
            printf '\x00%b' "$request" >"$2/request-$n-open"
            printf '\x01%b' "$request" >"$2/request-$n-password"
        done
        ;;
    esac
}

max_len() {
    case $1 in
    FuzzVCard | FuzzMultistatus) echo 65536 ;; # a few cards; the readers' 1-2 MiB limits are unit-tested
    FuzzTOML) echo 16384 ;;                    # a configuration file is a page or two
    FuzzStatusRequest) echo 8192 ;;            # MHD's per-connection memory (StatusServer.Settings) is 32 KiB
    esac
}

dictionary() {
    case $1 in
    FuzzVCard) echo "-dict=Fuzz/Dictionaries/vcard.dict" ;;
    FuzzMultistatus) echo "-dict=Fuzz/Dictionaries/xml.dict" ;;
    FuzzTOML) echo "-dict=Fuzz/Dictionaries/toml.dict" ;;
    FuzzStatusRequest) echo "-dict=Fuzz/Dictionaries/http.dict" ;;
    esac
}

# --- Runs ------------------------------------------------------------------------------------------
# malloc_context_size=0: ASan records no stack per allocation, which doubled the vCard target's speed; a
# crash's own stack is still printed in full.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
# Swift's own crash backtracer reads the crashed process's memory in a way ASan reports as a second crash of its
# own; libFuzzer prints the stack anyway.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
status=0
for target in "${targets[@]}"; do
    corpus=$work/corpus/$target
    mkdir -p "$corpus" "$work/crashes"
    seed "$target" "$corpus"
    log=$work/$target.log
    rm -f "$work/crashes/$target-"*
    started=$SECONDS
    "$bin/$target" "$corpus" "$(dictionary "$target")" -max_total_time="$seconds" -max_len="$(max_len "$target")" \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$work/crashes/$target-" \
        >"$log" 2>&1 || true
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    crash=$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | head -n 1)
    printf 'fuzz: %-17s %9s executions %6s exec/s %3ss  corpus %s files  ' "$target" "${runs:-?}" \
        "${speed:-?}" "$((SECONDS - started))" "$(find "$corpus" -type f | wc -l)"
    if [[ -n $crash ]]; then
        echo "1 crash: $crash (log: $log)"
        status=1
    elif [[ -z $runs ]]; then
        echo "did not finish: see $log"
        status=1
    else
        echo "0 crashes"
    fi
done
exit "$status"
