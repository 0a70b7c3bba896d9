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
