#!/usr/bin/env bash
# Checks the Debian package Deploy/package.sh builds, as Deploy/test.sh runs it: two builds from the same
# binaries and SOURCE_DATE_EPOCH give the same .deb (sha256); lintian finds no error (its warnings are printed:
# each must be explained in Deploy/debian/lintian-notes.md or overridden); the files (dpkg -c), the conffiles
# and the control fields (dpkg -I) are the expected ones; then prints the package's size and installed size.
# Builds with --fast (xz -1) to stay within a minute; the files are the same as a default build's.
# With --rootfs, also installs, upgrades, removes, installs again and purges it with dpkg in a chroot (a copy of a
# Debian root filesystem that has the package's dependencies, such as the systemd VM's cached one), and checks what
# the maintainer scripts leave each time. No systemd runs there: the service is enabled, never started.
#   Deploy/package-check.sh --bin .build/release
#   Deploy/package-check.sh --bin .build/release --rootfs ~/.cache/gpio-vm/debian/*/root
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Deploy/package-check.sh --bin DIR [--rootfs ROOT]
Builds the package twice from the binaries in DIR (Deploy/package.sh --fast) and checks it:
reproducible, lintian without errors, its files, conffiles and control fields.

  --bin DIR      the release binaries contactbox and contactbox-remote
  --rootfs ROOT  also install, upgrade, remove, install again and purge the package in a
                 chroot made from a copy of ROOT, a Debian root filesystem with the package's
                 dependencies (as root; ROOT itself is not changed)
  -h, --help     show this help

Needs lintian. Exit status: 0 all good; 1 a check failed; 64 bad usage.
EOF
}

bin_dir=""
rootfs=""
while [[ $# -gt 0 ]]; do
    case $1 in
        --bin)
            [[ $# -ge 2 && -n $2 ]] || { echo "package-check.sh: --bin needs a value" >&2; usage >&2; exit 64; }
            bin_dir=$2
            shift
            ;;
        --bin=*) bin_dir=${1#*=} ;;
        --rootfs)
            [[ $# -ge 2 && -n $2 ]] || { echo "package-check.sh: --rootfs needs a value" >&2; usage >&2; exit 64; }
            rootfs=$2
            shift
            ;;
        --rootfs=*) rootfs=${1#*=} ;;
        -h | --help) usage; exit 0 ;;
        *) echo "package-check.sh: unknown option: $1" >&2; usage >&2; exit 64 ;;
    esac
    shift
done
[[ -n $bin_dir ]] || { echo "package-check.sh: --bin DIR is needed" >&2; usage >&2; exit 64; }
[[ $bin_dir == /* ]] || bin_dir="$PWD/$bin_dir"
cd "$(dirname "$0")/.."
command -v lintian >/dev/null || { echo "package-check.sh: needs lintian (apt-get install lintian)" >&2; exit 1; }

if [[ -n $rootfs ]]; then
    [[ -x $rootfs/usr/bin/dpkg ]] || { echo "package-check.sh: no Debian root filesystem in $rootfs" >&2; exit 64; }
    [[ $(id -u) -eq 0 ]] || { echo "package-check.sh: --rootfs needs root (chroot)" >&2; exit 1; }
fi

work=$(mktemp -d)
proc_mounted=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
    # Never remove the copy while the kernel's /proc is mounted in it.
    if [[ -n $proc_mounted ]] && ! umount "$proc_mounted"; then
        echo "package-check: could not unmount $proc_mounted; $work is left" >&2
        return
    fi
    rm -rf "$work"
}
trap cleanup EXIT
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

# --- Install, upgrade, remove, purge in a chroot ---------------------------------
if [[ -n $rootfs ]]; then
    started=$SECONDS
    chroot_dir=$work/rootfs
    cp -a "$rootfs/." "$chroot_dir"
    mount -t proc proc "$chroot_dir/proc"
    proc_mounted=$chroot_dir/proc
    mkdir -p "$chroot_dir/tmp/package-check"
    cp "$deb" "$chroot_dir/tmp/package-check/contactbox.deb"
    printf 'BEGIN:VCARD\r\nVERSION:3.0\r\nUID:package-check-1\r\nFN:Ann Example\r\nEND:VCARD\r\n' \
        >"$chroot_dir/tmp/package-check/ann.vcf"
    in_root() { chroot "$chroot_dir" "$@"; }
    dpkg_in_root() { in_root dpkg "$@" >>"$work/dpkg.log" 2>&1 || fail "dpkg $* (log: $(tail -n 5 "$work/dpkg.log"))"; }
    mode_of() { in_root stat -c '%A %U:%G' "$1" 2>/dev/null || echo missing; }

    # A first installation: the user, the folders, the unit enabled.
    dpkg_in_root -i /tmp/package-check/contactbox.deb
    in_root id -nG contactbox 2>/dev/null | grep -qw gpio || fail "install: no user contactbox in group gpio"
    [[ $(mode_of /etc/contactbox) == "drwxr-x--- root:contactbox" ]] || fail "install: /etc/contactbox is $(mode_of /etc/contactbox)"
    [[ $(mode_of /etc/contactbox/contactbox.toml) == "-rw-r----- root:contactbox" ]] ||
        fail "install: the configuration is $(mode_of /etc/contactbox/contactbox.toml)"
    [[ $(mode_of /var/lib/contactbox) == "drwx------ contactbox:contactbox" ]] ||
        fail "install: /var/lib/contactbox is $(mode_of /var/lib/contactbox)"
    [[ -L $chroot_dir/etc/systemd/system/multi-user.target.wants/contactbox.service ]] || fail "install: the unit is not enabled"
    in_root runuser -u contactbox -- contactbox import /tmp/package-check/ann.vcf >/dev/null 2>&1 ||
        fail "install: contactbox import as the service's user"

    # An upgrade keeps a changed configuration.
    echo '# changed by package-check' >>"$chroot_dir/etc/contactbox/contactbox.toml"
    dpkg_in_root -i /tmp/package-check/contactbox.deb
    grep -q '^# changed by package-check$' "$chroot_dir/etc/contactbox/contactbox.toml" || fail "upgrade: the configuration was replaced"

    # Remove: the binaries go, the configuration and the store stay, with an export of every contact.
    dpkg_in_root --remove contactbox
    [[ ! -e $chroot_dir/usr/bin/contactbox ]] || fail "remove: /usr/bin/contactbox is still there"
    [[ -f $chroot_dir/etc/contactbox/contactbox.toml && -f $chroot_dir/var/lib/contactbox/contacts.sqlite ]] ||
        fail "remove: the configuration or the store is gone"
    grep -q '^UID:package-check-1' "$chroot_dir/var/lib/contactbox/contactbox-export.vcf" 2>/dev/null ||
        fail "remove: no export of the contacts in /var/lib/contactbox/contactbox-export.vcf"

    # Installed again, it finds the store.
    dpkg_in_root -i /tmp/package-check/contactbox.deb
    in_root runuser -u contactbox -- contactbox list 2>/dev/null | grep -q 'package-check-1' ||
        fail "install again: the store's contact is not listed"
    [[ ! -e $chroot_dir/var/lib/contactbox/contactbox-export.vcf ]] || fail "install again: the old export is left"

    # Purge: the export in /var/backups, nothing else of ContactBox but its user.
    dpkg_in_root --purge contactbox
    exports=("$chroot_dir"/var/backups/contactbox-export-*.vcf)
    if ! grep -qs '^UID:package-check-1' "${exports[0]}"; then
        fail "purge: no export with the contact in /var/backups"
    fi
    left=$(in_root find / -xdev -name '*contactbox*' -not -path '/tmp/*' -not -path '/var/backups/*' 2>/dev/null || true)
    [[ -z $left ]] || fail "purge: left behind: $left"
    in_root getent passwd contactbox >/dev/null || fail "purge: the user contactbox is gone (it should stay)"
    echo "package-check: install, upgrade, remove, install again, purge in a chroot of $rootfs ($((SECONDS - started)) s)"
fi

# --- Size -----------------------------------------------------------------------
size=$(stat -c %s "$deb")
echo "package-check: $(basename "$deb"): $(((size + 1023) / 1024)) KiB (xz -1; the default build, xz -6, is" \
    "smaller), installed $(dpkg-deb -f "$deb" Installed-Size) KiB"

if [[ $failures -gt 0 ]]; then
    echo "package-check: $failures check(s) failed" >&2
    exit 1
fi
echo "package-check: all checks passed"
