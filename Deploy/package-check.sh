#!/usr/bin/env bash
# Checks the Debian package Deploy/package.sh builds, as Deploy/test.sh runs it: two builds from the same
# binaries and SOURCE_DATE_EPOCH give the same .deb (sha256); lintian finds no error (its warnings are printed:
# each must be explained in Deploy/debian/lintian-notes.md or overridden); the files (dpkg -c), the conffiles
# and the control fields (dpkg -I) are the expected ones; then prints the package's size and installed size.
# Builds with --fast (xz -1) to stay within a minute; the files are the same as a default build's.
#   Deploy/package-check.sh --bin .build/release
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Deploy/package-check.sh --bin DIR
Builds the package twice from the binaries in DIR (Deploy/package.sh --fast) and checks it:
reproducible, lintian without errors, its files, conffiles and control fields.
Needs lintian. Exit status: 0 all good; 1 a check failed; 64 bad usage.
EOF
}

bin_dir=""
while [[ $# -gt 0 ]]; do
    case $1 in
        --bin)
            [[ $# -ge 2 && -n $2 ]] || { echo "package-check.sh: --bin needs a value" >&2; usage >&2; exit 64; }
            bin_dir=$2
            shift
            ;;
        --bin=*) bin_dir=${1#*=} ;;
        -h | --help) usage; exit 0 ;;
        *) echo "package-check.sh: unknown option: $1" >&2; usage >&2; exit 64 ;;
    esac
    shift
done
[[ -n $bin_dir ]] || { echo "package-check.sh: --bin DIR is needed" >&2; usage >&2; exit 64; }
[[ $bin_dir == /* ]] || bin_dir="$PWD/$bin_dir"
cd "$(dirname "$0")/.."
command -v lintian >/dev/null || { echo "package-check.sh: needs lintian (apt-get install lintian)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
    echo "package-check: FAILED: $*" >&2
    failures=$((failures + 1))
}

# --- Two builds, the same bytes -------------------------------------------------
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || echo 1700000000)
export SOURCE_DATE_EPOCH
started=$SECONDS
deb=$(Deploy/package.sh --fast --bin "$bin_dir" --out "$work/a" 2>/dev/null)
again=$(Deploy/package.sh --fast --bin "$bin_dir" --out "$work/b" 2>/dev/null)
first_sum=$(sha256sum <"$deb" | cut -d' ' -f1)
second_sum=$(sha256sum <"$again" | cut -d' ' -f1)
if [[ $first_sum == "$second_sum" ]]; then
    echo "package-check: reproducible: two builds, sha256 $first_sum ($((SECONDS - started)) s)"
else
    fail "two builds differ: $first_sum and $second_sum (diffoscope $(basename "$deb") shows where)"
fi

# --- lintian --------------------------------------------------------------------
# As root lintian says it would rather not be; that line is not a finding.
lintian_status=0
lintian --pedantic --fail-on error "$deb" >"$work/lintian" 2>&1 || lintian_status=$?
findings=$(grep -v -e 'spelling-error-in-binary' -e '^running with root privileges' "$work/lintian" || true)
if [[ $lintian_status -ne 0 ]]; then
    fail "lintian (exit $lintian_status): $findings"
elif grep -q '^W: ' <<<"$findings"; then
    echo "package-check: lintian warnings, to explain in Deploy/debian/lintian-notes.md or override:" >&2
    grep '^W: ' <<<"$findings" >&2
else
    echo "package-check: lintian: no errors, no warnings${findings:+ (besides: $(wc -l <<<"$findings") info/pedantic)}"
fi

# --- Files, conffiles, control --------------------------------------------------
dpkg-deb -c "$deb" | awk '{ sub(/^\.\//, "", $6); print $1, $6 }' >"$work/files"
expect_file() {
    grep -q "^$1 $2\$" "$work/files" || fail "no $2 with mode $1 in the package"
}
expect_file -rwxr-xr-x usr/bin/contactbox
expect_file -rwxr-xr-x usr/bin/contactbox-remote
expect_file -rw-r--r-- usr/lib/systemd/system/contactbox.service
expect_file -rw-r--r-- etc/avahi/services/contactbox.service
expect_file drwxr-x--- etc/contactbox/
expect_file -rw-r----- etc/contactbox/contactbox.toml
expect_file -rw-r--r-- usr/lib/udev/rules.d/60-contactbox-gpio.rules
for board in Board/*.toml; do
    expect_file -rw-r--r-- "usr/share/contactbox/boards/$(basename "$board")"
done
for page in man1/contactbox.1.gz man1/contactbox-remote.1.gz man5/contactbox.toml.5.gz; do
    expect_file -rw-r--r-- "usr/share/man/$page"
done
expect_file -rw-r--r-- usr/share/doc/contactbox/copyright
expect_file -rw-r--r-- usr/share/doc/contactbox/changelog.gz
# Nothing outside the places a package may put files, nothing of install.sh's /usr/local.
unexpected=$(awk '{ print $2 }' "$work/files" | grep -v -E '^(|etc/|etc/avahi/.*|etc/contactbox/.*|usr/|usr/bin/.*|usr/lib/.*|usr/share/.*)$' || true)
[[ -z $unexpected ]] || fail "files in unexpected places: $unexpected"
owners=$(dpkg-deb -c "$deb" | awk '$2 != "root/root"' || true)
[[ -z $owners ]] || fail "files not owned by root: $owners"

conffiles=$(dpkg-deb -I "$deb" conffiles)
[[ $conffiles == $'/etc/avahi/services/contactbox.service\n/etc/contactbox/contactbox.toml' ]] ||
    fail "conffiles are not the Avahi service and the configuration: $conffiles"
for script in postinst prerm postrm; do
    dpkg-deb -I "$deb" "$script" | cmp -s - "Deploy/debian/$script" || fail "DEBIAN/$script is not Deploy/debian/$script"
done

version=$(sed -n 's/^public let contactboxVersion = "\([^"]*\)"$/\1/p' Sources/CLISupport/Exit.swift)
[[ $(dpkg-deb -f "$deb" Version) == "$version" ]] || fail "Version: is not $version (Sources/CLISupport/Exit.swift)"
[[ $(basename "$deb") == "contactbox_${version}_$(dpkg --print-architecture).deb" ]] || fail "named $(basename "$deb")"
depends=$(dpkg-deb -f "$deb" Depends)
for library in adduser libcurl4 libsqlite3-0 libgpiod2 libmicrohttpd12 libxml2 libpsl5; do
    [[ ", $depends," == *", $library "* || ", $depends," == *", $library,"* ]] || fail "Depends: lacks $library: $depends"
done

# The unit runs the packaged binary; the configuration is the example (no remote set).
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" ./usr/lib/systemd/system/contactbox.service ./etc/contactbox/contactbox.toml
grep -qx 'ExecStart=/usr/bin/contactbox run' "$work/usr/lib/systemd/system/contactbox.service" ||
    fail "the unit's ExecStart= is not /usr/bin/contactbox run"
cmp -s "$work/etc/contactbox/contactbox.toml" Deploy/contactbox.example.toml ||
    fail "/etc/contactbox/contactbox.toml is not Deploy/contactbox.example.toml"
! grep -q '^\[\[remote\]\]' "$work/etc/contactbox/contactbox.toml" || fail "the packaged configuration sets a remote"

# --- Size -----------------------------------------------------------------------
size=$(stat -c %s "$deb")
echo "package-check: $(basename "$deb"): $(((size + 1023) / 1024)) KiB (xz -1; the default build, xz -6, is" \
    "smaller), installed $(dpkg-deb -f "$deb" Installed-Size) KiB"

if [[ $failures -gt 0 ]]; then
    echo "package-check: $failures check(s) failed" >&2
    exit 1
fi
echo "package-check: all checks passed"
