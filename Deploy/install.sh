#!/usr/bin/env bash
# Installs ContactBox on this machine (a Raspberry Pi with Raspberry Pi OS or
# Debian 12), from a clone of the repository: the packages it needs, a release
# build of both binaries, a system user, the board pin maps, the systemd unit,
# the Avahi announcement and, if there is none yet, the configuration; then
# starts the service. Run it as a normal user with sudo, or as root:
#   Deploy/install.sh                  # asks for the sudo password when needed
#   sudo Deploy/install.sh --board raspberry-pi-4 --hostname contactbox
# Running it again upgrades the binaries and restarts the service; it never
# overwrites an existing configuration. `Deploy/install.sh --help` lists the options.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: Deploy/install.sh [OPTION]...
Builds and installs ContactBox and its systemd service on this machine.

  --board NAME       the front panel's pin map, a file of Board/ without .toml
                     (raspberry-pi-5, raspberry-pi-4, raspberry-pi-3 (also Zero 2 W),
                     simulated); default: detected from /proc/device-tree/model.
                     Written into a new configuration only.
  --hostname NAME    also rename this machine to NAME (e.g. contactbox, so the
                     status page is at http://contactbox.local:8080). Never done
                     without this option.
  --no-avahi         do not install avahi-daemon nor avahi-utils: neither the
                     status page nor the box's name is announced on the network
  --no-start         install, but do not enable nor (re)start the service
  --prefix DIR       where the binaries go: DIR/bin (default: /usr/local)
  --destdir DIR      stage every file under DIR instead of /, for packaging and
                     tests: no runtime packages, no user, no chown, no systemctl
  --bin DIR          install the binaries contactbox and contactbox-remote found
                     in DIR instead of building them (implies --skip-build)
  --skip-build       do not build: install the last release build
  --dry-run          print what would be done, change nothing
  -h, --help         show this help
EOF
}

die() {
    echo "install.sh: $*" >&2
    exit 1
}

# --- Options -------------------------------------------------------------------
board=""
new_hostname=""
avahi=1
start=1
prefix=/usr/local
destdir=""
bin_dir=""
build=1
dry_run=0

need_value() {
    [[ $# -ge 2 && -n $2 ]] || { echo "install.sh: $1 needs a value" >&2; usage >&2; exit 64; }
}
while [[ $# -gt 0 ]]; do
    case $1 in
        --board) need_value "$@"; board=$2; shift ;;
        --board=*) board=${1#*=} ;;
        --hostname) need_value "$@"; new_hostname=$2; shift ;;
        --hostname=*) new_hostname=${1#*=} ;;
        --no-avahi) avahi=0 ;;
        --no-start) start=0 ;;
        --prefix) need_value "$@"; prefix=$2; shift ;;
        --prefix=*) prefix=${1#*=} ;;
        --destdir) need_value "$@"; destdir=$2; shift ;;
        --destdir=*) destdir=${1#*=} ;;
        --bin) need_value "$@"; bin_dir=$2; build=0; shift ;;
        --bin=*) bin_dir=${1#*=}; build=0 ;;
        --skip-build) build=0 ;;
        --dry-run) dry_run=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install.sh: unknown option: $1" >&2; usage >&2; exit 64 ;;
    esac
    shift
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

[[ $prefix == /* ]] || die "--prefix must be an absolute path: $prefix"
prefix=${prefix%/}
if [[ -n $destdir ]]; then
    [[ $destdir == /* ]] || destdir="$PWD/$destdir"
    destdir=${destdir%/}
fi
if [[ -n $bin_dir ]]; then
    [[ $bin_dir == /* ]] || bin_dir="$PWD/$bin_dir"
fi
if [[ -n $new_hostname ]]; then
    [[ -z $destdir ]] || die "--hostname renames this machine; it cannot be used with --destdir"
    # RFC 1123 host name label: what mDNS will publish as NAME.local.
    [[ $new_hostname =~ ^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$ ]] ||
        die "not a valid host name (letters, digits and '-', at most 63): $new_hostname"
fi

# Where things go. Only the binaries follow --prefix: the daemon looks for its
# boards in /usr/share/contactbox/boards, and systemd for the unit in /etc.
bin_target="$prefix/bin"
boards_target=/usr/share/contactbox/boards
unit_target=/etc/systemd/system/contactbox.service
avahi_target=/etc/avahi/services/contactbox.service
config_dir=/etc/contactbox
config_target="$config_dir/contactbox.toml"
udev_rule_target=/etc/udev/rules.d/60-contactbox-gpio.rules
service_user=contactbox

RUNTIME_PACKAGES=(libgpiod2 libsqlite3-0 libcurl4 libxml2 libmicrohttpd12)
if [[ $avahi -eq 1 ]]; then
    # avahi-utils: avahi-publish, with which the daemon publishes the box's name ([box] name,
    # set on the status page) as NAME.local and lists its page under that name.
    RUNTIME_PACKAGES+=(avahi-daemon avahi-utils)
fi

# --- Helpers -------------------------------------------------------------------
is_root() { [[ $(id -u) -eq 0 ]]; }

# run COMMAND...: runs it, or prints it under --dry-run.
run() {
    if [[ $dry_run -eq 1 ]]; then
        printf '  would run:'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

# as_root COMMAND...: as root (through sudo for a normal user). Under --destdir
# nothing needs root, so the command runs as whoever runs the script.
as_root() {
    if [[ -n $destdir ]] || is_root; then
        run "$@"
    else
        run sudo "$@"
    fi
}

say() { echo "==> $*"; }

# root_write FILE [append]: standard input into FILE (at its end with "append"), as root.
root_write() {
    if [[ $dry_run -eq 1 ]]; then
        echo "  would ${2:+append }write to $1: $(cat)"
    elif [[ -n ${2:-} ]]; then
        as_root tee -a "$1" >/dev/null
    else
        as_root tee "$1" >/dev/null
    fi
}

# install_file MODE SOURCE TARGET: copies SOURCE to DESTDIR/TARGET through a
# temporary file and a rename, so a running binary is replaced, not rewritten
# in place ("text file busy"), and a reader never sees half a file.
install_file() {
    local mode=$1 source=$2 target="$destdir$3"
    as_root install -m "$mode" "$source" "$target.new"
    as_root mv -f "$target.new" "$target"
}

install_dir() {
    local mode=$1 target="$destdir$2"
    as_root install -d -m "$mode" "$target"
}

# owned_by_service PATH: root:contactbox, so the daemon may read what other
# users may not. Not under --destdir (the group exists on the target only).
owned_by_service() {
    [[ -n $destdir ]] || as_root chown "root:$service_user" "$1"
}

# exists_as_root PATH: whether DESTDIR/PATH exists. /etc/contactbox is 0750,
# so a normal user has to look through sudo.
exists_as_root() {
    if [[ -n $destdir ]] || is_root; then
        [[ -e $destdir$1 ]]
    else
        sudo -n test -e "$1" 2>/dev/null
    fi
}

# detect_board: the Board/ file for this machine, from the device tree's model
# string, e.g. "Raspberry Pi 4 Model B Rev 1.4" (NUL-terminated).
# CONTACTBOX_MODEL_FILE reads another file instead (for the tests).
detect_board() {
    local model="" file=${CONTACTBOX_MODEL_FILE:-/proc/device-tree/model}
    if [[ -r $file ]]; then
        model=$(tr -d '\0' <"$file")
    fi
    case $model in
        *"Raspberry Pi 5"*) echo raspberry-pi-5 ;;   # also the Pi 500
        *"Raspberry Pi 4"*) echo raspberry-pi-4 ;;   # also the Pi 400
        *"Raspberry Pi 3"* | *"Zero 2"*) echo raspberry-pi-3 ;;
        *) echo simulated ;;
    esac
}

# set_board FILE NAME: `board = "NAME"` in FILE's [panel] table: replaces the
# table's board line (commented out or not), adds one under its header when it
# has none, and adds the table at the end when the file has none.
set_board() {
    local file=$1 name=$2 updated
    updated=$(awk -v name="$name" '
        function emit_board() { print "board = \"" name "\""; done = 1 }
        /^[[:space:]]*\[/ {
            if (in_panel && !done) emit_board()
            in_panel = ($0 ~ /^[[:space:]]*\[panel\][[:space:]]*(#.*)?$/)
            print
            next
        }
        in_panel && !done && /^[[:space:]]*#?[[:space:]]*board[[:space:]]*=[[:space:]]*"/ {
            emit_board()
            next
        }
        { print }
        END {
            if (in_panel && !done) emit_board()
            else if (!done) { print ""; print "[panel]"; emit_board() }
        }
    ' "$file")
    printf '%s\n' "$updated" >"$file"
}

# find_swift: puts the Swift toolchain on PATH. sudo resets PATH, so a toolchain
# unpacked to /opt/swift (as the README says) or in the user's home is searched
# for by name.
find_swift() {
    command -v swift >/dev/null && return 0
    local home="" candidate
    [[ -n ${SUDO_USER:-} ]] && home=$(getent passwd "$SUDO_USER" | cut -d: -f6)
    for candidate in /opt/swift/usr/bin /opt/swift-*/usr/bin /usr/share/swift/usr/bin \
        ${home:+"$home"/swift/usr/bin "$home"/swift-*/usr/bin "$home"/.local/share/swiftly/bin}; do
        if [[ -x $candidate/swift ]]; then
            PATH="$candidate:$PATH"
            return 0
        fi
    done
    die "no swift on PATH: install the Swift toolchain first (README: Setting up a Raspberry Pi)"
}

# as_builder COMMAND...: runs a build command as the user who owns the clone
# (under sudo: the user who called sudo), so .build/ and Swift's caches stay theirs.
as_builder() {
    if is_root && [[ -n ${SUDO_USER:-} && $SUDO_USER != root && $(stat -c %U "$repo") == "$SUDO_USER" ]]; then
        sudo -u "$SUDO_USER" env PATH="$PATH" HOME="$(getent passwd "$SUDO_USER" | cut -d: -f6)" "$@"
    else
        "$@"
    fi
}

# --- 0. Before anything: root, board -------------------------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[[ -n $board ]] || board=$(detect_board)
if [[ ! -f Board/$board.toml ]]; then
    boards=()
    for file in Board/*.toml; do
        boards+=("$(basename "$file" .toml)")
    done
    die "no pin map Board/$board.toml; boards: ${boards[*]}"
fi
say "Board: $board"

if [[ -z $destdir && $dry_run -eq 0 ]] && ! is_root; then
    command -v sudo >/dev/null || die "run this as root, or install sudo"
    say "Some steps need root: sudo may ask for your password."
    # apt_ensure uses `sudo -n`: it finds the credential cached here.
    sudo -v
fi

# --- 1. Packages ---------------------------------------------------------------
# shellcheck source=Deploy/lib/apt-ensure.sh
source Deploy/lib/apt-ensure.sh
packages=()
[[ $build -eq 1 ]] && packages+=("${BUILD_PACKAGES[@]}")
# A package (--destdir) declares its dependencies instead.
[[ -z $destdir ]] && packages+=("${RUNTIME_PACKAGES[@]}")
if [[ ${#packages[@]} -gt 0 ]]; then
    say "Packages: ${packages[*]}"
    if [[ $dry_run -eq 1 ]]; then
        echo "  would install those missing (apt_ensure)"
    else
        apt_ensure "${packages[@]}"
    fi
fi

# --- 2. Binaries ---------------------------------------------------------------
# shellcheck source=Deploy/lib/release-build.sh
source Deploy/lib/release-build.sh
# shellcheck disable=SC2016 # expanded by the inner bash, after sourcing
if [[ $build -eq 1 ]]; then
    find_swift
    say "Building the release binaries (the first build takes a while)"
    if [[ $dry_run -eq 1 ]]; then
        echo "  would run: swift build ${RELEASE_FLAGS[*]}"
        bin_dir="$repo/.build/release"
    else
        bin_dir=$(as_builder bash -c \
            'set -euo pipefail; source Deploy/lib/release-build.sh; release_build; dirname "$CONTACTBOX_BIN"')
    fi
elif [[ -z $bin_dir ]]; then
    find_swift
    bin_dir=$(as_builder bash -c \
        'set -euo pipefail; source Deploy/lib/release-build.sh; swift build "${RELEASE_FLAGS[@]}" --show-bin-path')
fi
for binary in contactbox contactbox-remote; do
    [[ $dry_run -eq 1 || -x $bin_dir/$binary ]] || die "no executable $bin_dir/$binary (build first, or see --bin)"
done

# --- 3. System user ------------------------------------------------------------
if [[ -z $destdir ]]; then
    if ! getent group gpio >/dev/null; then
        # Raspberry Pi OS gives /dev/gpiochip* to group gpio; plain Debian has
        # neither the group nor the rule, so make both.
        say "Creating group gpio and a udev rule giving it /dev/gpiochip*"
        as_root groupadd --system gpio
        install_udev_rule=1
    fi
    if [[ ${install_udev_rule:-0} -eq 1 || -f $udev_rule_target ]]; then
        echo 'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"' >"$work/gpio.rules"
        install_file 0644 "$work/gpio.rules" "$udev_rule_target"
        as_root udevadm control --reload-rules || true
        as_root udevadm trigger --subsystem-match=gpio || true
    fi
    if ! getent passwd "$service_user" >/dev/null; then
        say "Creating system user $service_user"
        as_root useradd --system --home-dir /var/lib/contactbox --shell /usr/sbin/nologin \
            --user-group "$service_user"
    fi
    as_root usermod --append --groups gpio "$service_user"
fi

# --- 4. Files ------------------------------------------------------------------
say "Installing into ${destdir:-/}"
install_dir 0755 "$bin_target"
install_file 0755 "$bin_dir/contactbox" "$bin_target/contactbox"
# contactbox sync/run start contactbox-remote from their own folder.
install_file 0755 "$bin_dir/contactbox-remote" "$bin_target/contactbox-remote"

install_dir 0755 "$boards_target"
for file in Board/*.toml; do
    install_file 0644 "$file" "$boards_target/$(basename "$file")"
done

install_dir 0755 "$(dirname "$unit_target")"
sed "s|^ExecStart=/usr/local/bin/contactbox |ExecStart=$bin_target/contactbox |" \
    Deploy/contactbox.service >"$work/contactbox.service"
install_file 0644 "$work/contactbox.service" "$unit_target"

if [[ $avahi -eq 1 ]]; then
    install_dir 0755 "$(dirname "$avahi_target")"
    install_file 0644 Deploy/contactbox.avahi.service "$avahi_target"
fi

# /etc/contactbox: root:contactbox 0750. The daemon reads it, cannot change it;
# other users cannot read it (it holds the password files).
install_dir 0750 "$config_dir"
owned_by_service "$config_dir"
if exists_as_root "$config_target"; then
    say "Keeping your $config_target (its [panel] board is yours to change); the new example is $config_target.example"
    install_file 0640 Deploy/contactbox.example.toml "$config_target.example"
    owned_by_service "$config_target.example"
    new_config=0
else
    say "Creating $config_target (board $board)"
    cp Deploy/contactbox.example.toml "$work/contactbox.toml"
    set_board "$work/contactbox.toml" "$board"
    install_file 0640 "$work/contactbox.toml" "$config_target"
    owned_by_service "$config_target"
    new_config=1
fi

# --- 5. Host name --------------------------------------------------------------
if [[ -n $new_hostname && $new_hostname != "$(hostname)" ]]; then
    say "Renaming this machine to $new_hostname"
    if [[ -d /run/systemd/system ]]; then
        as_root hostnamectl set-hostname "$new_hostname"
    else
        echo "$new_hostname" | root_write /etc/hostname
        as_root hostname "$new_hostname"
    fi
    # Debian names the machine in /etc/hosts too (127.0.1.1); sudo complains otherwise.
    if grep -q '^127\.0\.1\.1[[:space:]]' /etc/hosts; then
        as_root sed -i "s/^127\.0\.1\.1[[:space:]].*/127.0.1.1\t$new_hostname/" /etc/hosts
    else
        printf '127.0.1.1\t%s\n' "$new_hostname" | root_write /etc/hosts append
    fi
    # Avahi announces the name it read at start.
    if [[ -d /run/systemd/system ]]; then
        as_root systemctl try-restart avahi-daemon
    fi
fi

# --- 6. Service ----------------------------------------------------------------
if [[ -z $destdir ]]; then
    if [[ ! -d /run/systemd/system ]]; then
        say "systemd is not running here: not starting the service"
    else
        as_root systemctl daemon-reload
        if [[ $start -eq 1 ]]; then
            say "Starting contactbox"
            as_root systemctl enable contactbox
            # restart: starts it, or runs the new binaries after an upgrade.
            as_root systemctl restart contactbox
        fi
    fi
fi

# --- Next steps ----------------------------------------------------------------
[[ $dry_run -eq 1 ]] && { echo; echo "Dry run: nothing was changed."; exit 0; }
[[ -z $destdir ]] || { say "Staged in $destdir"; exit 0; }
host=${new_hostname:-$(hostname)}
address=$(hostname -I 2>/dev/null | cut -d' ' -f1 || true)
echo
echo "ContactBox is installed. Next:"
if [[ $new_config -eq 1 ]]; then
    echo "  1. Add your address books:   sudo nano $config_target"
else
    echo "  1. Your configuration was kept: $config_target (compare with $config_target.example)"
fi
echo "     Passwords go in files:     sudo install -m 600 -o contactbox -g contactbox /dev/stdin $config_dir/NAME.password"
# As the service user: it reads the files with the daemon's rights.
echo "  2. Check it:                  sudo -u $service_user $bin_target/contactbox check-config"
echo "  3. Apply it:                  sudo systemctl reload contactbox"
[[ $start -eq 1 ]] || echo "     (not started: sudo systemctl enable --now contactbox)"
echo "  4. Watch it work:             journalctl -u contactbox -f"
if [[ $avahi -eq 1 ]]; then
    echo "  Status page: http://$host.local:8080${address:+  (or http://$address:8080)}"
else
    echo "  Status page: http://${address:-$host}:8080"
fi
