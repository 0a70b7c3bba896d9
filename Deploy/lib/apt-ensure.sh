# shellcheck shell=bash
# Sourced by the Deploy scripts: apt_ensure PACKAGE... installs the Debian
# packages that are missing. `apt-get update` runs only when one is missing, so a
# ready machine needs no network. As root it runs apt-get directly, otherwise
# through `sudo -n` (fails rather than prompting).

# What `swift build` needs: the C libraries of Package.swift's shim modules.
# shellcheck disable=SC2034 # used by the scripts that source this file
BUILD_PACKAGES=(libsqlite3-dev libcurl4-openssl-dev libssl-dev libpsl-dev libgpiod-dev libmicrohttpd-dev libxml2-dev pkg-config)

apt_ensure() {
    local pkg missing=()
    for pkg in "$@"; do
        # shellcheck disable=SC2016 # ${Status} is dpkg-query's field, not ours
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
            missing+=("$pkg")
        fi
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0

    local as_root=()
    [[ $(id -u) -eq 0 ]] || as_root=(sudo -n)
    echo "Installing missing packages: ${missing[*]}" >&2
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# apt_ensure_no_services SERVICE... -- PACKAGE...: apt_ensure for packages that ship
# system services the tests must not have running (cyrus-imapd, and the exim4 it pulls
# in: the tests start private instances of their own). Their installation starts
# nothing (a policy-rc.d that refuses, unless the machine has one already), and each
# SERVICE is stopped if it runs and disabled, with systemd or the SysV scripts.
apt_ensure_no_services() {
    local services=() packages=() arg
    while [[ $# -gt 0 && $1 != -- ]]; do services+=("$1"); shift; done
    [[ $# -gt 0 ]] && shift
    packages=("$@")
    local needed=0
    for arg in "${packages[@]}"; do
        # shellcheck disable=SC2016 # ${Status} is dpkg-query's field, not ours
        dpkg-query -W -f='${Status}' "$arg" 2>/dev/null | grep -q '^install ok installed$' || needed=1
    done
    local as_root=()
    [[ $(id -u) -eq 0 ]] || as_root=(sudo -n)
    if [[ $needed -eq 1 ]]; then
        local policy=/usr/sbin/policy-rc.d made_policy=0
        if [[ ! -e $policy ]]; then
            printf '#!/bin/sh\n# made by ContactBox Deploy/lib/apt-ensure.sh for one install\nexit 101\n' |
                "${as_root[@]}" tee "$policy" >/dev/null
            "${as_root[@]}" chmod 755 "$policy"
            made_policy=1
        fi
        local status=0
        apt_ensure "${packages[@]}" || status=$?
        [[ $made_policy -eq 1 ]] && "${as_root[@]}" rm -f "$policy"
        [[ $status -eq 0 ]] || return "$status"
    fi
    for arg in "${services[@]}"; do
        # systemd's units (disabled offline too, so a later boot under systemd starts nothing) ...
        if command -v systemctl >/dev/null && systemctl is-enabled --quiet "$arg" 2>/dev/null; then
            echo "Disabling the system service $arg" >&2
            "${as_root[@]}" systemctl disable --quiet "$arg" 2>/dev/null || true
        fi
        if [[ -d /run/systemd/system ]]; then
            systemctl is-active --quiet "$arg" 2>/dev/null && "${as_root[@]}" systemctl stop "$arg"
        elif [[ -x /etc/init.d/$arg ]]; then
            # ... and the SysV scripts of a machine without systemd as PID 1.
            if "${as_root[@]}" /etc/init.d/"$arg" status >/dev/null 2>&1; then
                echo "Stopping the system service $arg" >&2
                "${as_root[@]}" /etc/init.d/"$arg" stop >/dev/null 2>&1 || true
            fi
        fi
        if compgen -G "/etc/rc[2345].d/S??$arg" >/dev/null; then
            "${as_root[@]}" update-rc.d "$arg" disable >/dev/null 2>&1 || true
        fi
    done
}
