#!/usr/bin/env bash
# Builds the Debian package contactbox_VERSION_ARCH.deb from the release binaries of this machine (arm64 on a
# Pi 4 or 5, amd64 on a PC): the two binaries in /usr/bin, the systemd unit, the Avahi service, the board
# files, the example configuration as /etc/contactbox/contactbox.toml, manual pages made from --help and the
# example, and the maintainer scripts of Deploy/debian/.
#   Deploy/package.sh                       # builds the release binaries first, as install.sh does
#   Deploy/package.sh --bin .build/release  # packages binaries built already
#
# No debhelper: there is one binary package, made from binaries built already, so dh's sequence (configure,
# build, install, then the dh_* steps over debian/) has nothing to build and most of its steps nothing to do.
# What it would do is done here in a few lines each: dh_strip (strip a copy), dh_installman and dh_compress
# (gzip -9n), dh_shlibdeps (dpkg-shlibdeps, over a debian/control stub), dh_md5sums, dh_gencontrol, and
# dh_installsystemd/dh_installdeb's maintainer scripts, written out in Deploy/debian/ where they can be read.
# That also keeps the package buildable where no debhelper is installed, on the Pi itself.
#
# Reproducible: SOURCE_DATE_EPOCH (default: the last commit's time) is every file's time and the changelog's
# date, files are sorted and owned by root (--root-owner-group), gzip leaves out names and times (-n): two
# builds of one commit from the same binaries give the same .deb, byte for byte.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Deploy/package.sh [OPTION]...
Builds the Debian package contactbox_VERSION_ARCH.deb (VERSION: the version the
binaries report, from Sources/CLISupport/Exit.swift; ARCH: dpkg --print-architecture).

  --bin DIR    package the binaries contactbox and contactbox-remote found in DIR
               (default: build them with `swift build -c release`, as install.sh does)
  --out DIR    write the package to DIR (default: the current folder)
  --fast       compress with xz -1 instead of dpkg-deb's xz -6: a few times faster,
               about 13 % larger (for checks; still reproducible)
  -h, --help   show this help

SOURCE_DATE_EPOCH (seconds) sets the files' times and the changelog's date; without
it, the time of the last commit. Prints the package's path, its size and its
installed size. Exit status: 0 built; 1 failed; 64 bad usage.
EOF
}

die() {
    echo "package.sh: $*" >&2
    exit 1
}

need_value() {
    [[ $# -ge 2 && -n $2 ]] || { echo "package.sh: $1 needs a value" >&2; usage >&2; exit 64; }
}

bin_dir=""
out_dir=$PWD
xz_level=6
while [[ $# -gt 0 ]]; do
    case $1 in
        --bin) need_value "$@"; bin_dir=$2; shift ;;
        --bin=*) bin_dir=${1#*=} ;;
        --out) need_value "$@"; out_dir=$2; shift ;;
        --out=*) out_dir=${1#*=} ;;
        --fast) xz_level=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "package.sh: unknown option: $1" >&2; usage >&2; exit 64 ;;
    esac
    shift
done
[[ -z $bin_dir || $bin_dir == /* ]] || bin_dir="$PWD/$bin_dir"
[[ $out_dir == /* ]] || out_dir="$PWD/$out_dir"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

for tool in dpkg-deb dpkg-shlibdeps strip gzip; do
    command -v "$tool" >/dev/null || die "needs $tool (Debian packages dpkg-dev, binutils, gzip)"
done

# --- The binaries ---------------------------------------------------------------
if [[ -z $bin_dir ]]; then
    # shellcheck source=Deploy/lib/release-build.sh
    source Deploy/lib/release-build.sh
    echo "package.sh: building the release binaries (the first build takes a while)" >&2
    # shellcheck disable=SC2119 # no extra build flags
    release_build
    bin_dir=$(dirname "$CONTACTBOX_BIN")
fi
for binary in contactbox contactbox-remote; do
    [[ -x $bin_dir/$binary ]] || die "no executable $bin_dir/$binary (build first, or see --bin)"
done

# --- Version, architecture, date ------------------------------------------------
# The version --version prints: contactboxVersion, which both binaries report.
version=$(sed -n 's/^public let contactboxVersion = "\([^"]*\)"$/\1/p' Sources/CLISupport/Exit.swift)
[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "no version found in Sources/CLISupport/Exit.swift: '$version'"
reported=$("$bin_dir/contactbox" --version)
[[ ${reported%% *} == "$version" ]] ||
    die "$bin_dir/contactbox is version ${reported%% *}, the sources say $version: build again"
arch=$(dpkg --print-architecture)
if [[ -z ${SOURCE_DATE_EPOCH:-} ]]; then
    SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
fi
[[ $SOURCE_DATE_EPOCH =~ ^[0-9]+$ ]] || die "SOURCE_DATE_EPOCH is no number of seconds: $SOURCE_DATE_EPOCH"
export SOURCE_DATE_EPOCH
day=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
maintainer="ContactBox maintainers <maintainers@users.noreply.a-seed-a84d2e0f.example>"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
umask 022

# --- The files ------------------------------------------------------------------
# Binaries: stripped copies, as dh_strip strips them (the originals keep their symbols for the benches).
install -d "$root/usr/bin"
for binary in contactbox contactbox-remote; do
    strip --remove-section=.comment --remove-section=.note -o "$root/usr/bin/$binary" "$bin_dir/$binary"
    chmod 0755 "$root/usr/bin/$binary"
done

# The unit, with its binary where the package puts it (install.sh's --prefix /usr does the same), and its
# manual pages for `systemctl help contactbox` (not in Deploy/contactbox.service: install.sh installs none).
install -d "$root/usr/lib/systemd/system"
sed -e 's|^ExecStart=/usr/local/bin/contactbox |ExecStart=/usr/bin/contactbox |' \
    -e 's|^Description=.*|&\nDocumentation=man:contactbox(1) man:contactbox.toml(5)|' Deploy/contactbox.service \
    >"$root/usr/lib/systemd/system/contactbox.service"
grep -q '^ExecStart=/usr/bin/contactbox ' "$root/usr/lib/systemd/system/contactbox.service" ||
    die "Deploy/contactbox.service has no ExecStart=/usr/local/bin/contactbox line to point at /usr/bin"

# Plain Debian has no rule for /dev/gpiochip*; Raspberry Pi OS's own (99-com.rules) says the same.
install -d "$root/usr/lib/udev/rules.d"
echo 'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"' \
    >"$root/usr/lib/udev/rules.d/60-contactbox-gpio.rules"

install -d "$root/usr/share/contactbox/boards"
install -m 0644 Board/*.toml "$root/usr/share/contactbox/boards/"

# Conffiles: dpkg keeps a changed one on upgrade. The configuration is the example as it is: no remote, the
# examples commented, so a fresh box starts to its setup page. /etc/contactbox is 0750 and the file 0640
# from the start; postinst gives them to group contactbox.
install -d "$root/etc/avahi/services"
install -m 0644 Deploy/contactbox.avahi.service "$root/etc/avahi/services/contactbox.service"
install -d -m 0750 "$root/etc/contactbox"
install -m 0640 Deploy/contactbox.example.toml "$root/etc/contactbox/contactbox.toml"

# Documentation: copyright, the changelog (changelog.gz, not changelog.Debian.gz: the package is native, its
# version the program's own, and Debian's policy names a native package's changelog so), the lintian overrides (explained in Deploy/debian/lintian-notes.md).
doc=$root/usr/share/doc/contactbox
install -d "$doc" "$root/usr/share/lintian/overrides"
install -m 0644 Deploy/debian/copyright "$doc/copyright"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
{
    printf 'contactbox (%s) unstable; urgency=medium\n\n' "$version"
    printf '  * Built by Deploy/package.sh from the ContactBox repository,\n    commit %s.\n\n' "$commit"
    printf ' -- %s  %s\n' "$maintainer" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$doc/changelog.gz"
install -m 0644 Deploy/debian/lintian-overrides "$root/usr/share/lintian/overrides/contactbox"

# Manual pages, from --help and the example configuration.
# shellcheck source=Deploy/lib/manpages.sh
source Deploy/lib/manpages.sh
install -d "$root/usr/share/man/man1" "$root/usr/share/man/man5"
help_manpage "$root/usr/bin/contactbox" contactbox "$day" "$version" details |
    gzip -9n >"$root/usr/share/man/man1/contactbox.1.gz"
help_manpage "$root/usr/bin/contactbox-remote" contactbox-remote "$day" "$version" "" \
    "the subcommands of contactbox that reach address books, and the daemon" \
    "contactbox runs this program, found next to it, for the subcommands that reach address books or run the daemon (run, sync, discover, pair, remote, token), so that the others never load the network libraries. It is not meant to be run by hand: its commands are those of contactbox(1), where they are described." |
    gzip -9n >"$root/usr/share/man/man1/contactbox-remote.1.gz"
config_manpage Deploy/contactbox.example.toml "$day" "$version" | gzip -9n >"$root/usr/share/man/man5/contactbox.toml.5.gz"

# --- The control files ----------------------------------------------------------
install -d "$root/DEBIAN"
for script in postinst prerm postrm; do
    install -m 0755 "Deploy/debian/$script" "$root/DEBIAN/$script"
done
(cd "$root" && find etc -type f | sort | sed 's|^|/|') >"$root/DEBIAN/conffiles"

# Depends: the libraries the binaries load, as the packages that have them (dpkg-shlibdeps reads a
# debian/control; a stub serves).
mkdir -p "$work/shlibs/debian"
printf 'Source: contactbox\n\nPackage: contactbox\nArchitecture: any\n' >"$work/shlibs/debian/control"
shlibs=$(cd "$work/shlibs" && dpkg-shlibdeps -O --warnings=1 -e"$root/usr/bin/contactbox" -e"$root/usr/bin/contactbox-remote")
depends=${shlibs#shlibs:Depends=}
[[ -n $depends && $depends != "$shlibs" ]] || die "dpkg-shlibdeps found no dependencies: $shlibs"

# Installed-Size as dpkg-gencontrol counts it: KiB per file, rounded up, and one per folder.
installed_size=$(cd "$root" && find . -path ./DEBIAN -prune -o \( -type f -printf '%s\n' \) -o \( -type d -printf '1024\n' \) |
    awk '{ total += int(($1 + 1023) / 1024) } END { print total }')

cat >"$root/DEBIAN/control" <<EOF
Package: contactbox
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: adduser, $depends
Recommends: avahi-daemon, avahi-utils
Section: utils
Priority: optional
Description: home appliance that keeps a household's contacts in sync
 ContactBox keeps a household's contacts in a local store (one SQLite file)
 and in step with their online address books (CardDAV: iCloud, Google,
 Fastmail, Nextcloud) and folders of vCards. It runs as a systemd service on a
 Raspberry Pi with a front panel of three LEDs and a button, and serves a
 status page on the home network (announced by Avahi), from which a phone sets
 it up. The command contactbox imports, exports, edits and restores contacts.
EOF

(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort |
    grep -v '^etc/' | xargs -d '\n' md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

# Every file's time: SOURCE_DATE_EPOCH (dpkg-deb uses it for the archive's own times).
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

# --- The package ----------------------------------------------------------------
mkdir -p "$out_dir"
deb=$out_dir/contactbox_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz -z"$xz_level" --build "$root" "$deb" >/dev/null
size=$(stat -c %s "$deb")
echo "$deb"
printf 'package.sh: contactbox %s (%s): %s KiB, installed %s KiB\n' "$version" "$arch" "$(((size + 1023) / 1024))" \
    "$installed_size" >&2
