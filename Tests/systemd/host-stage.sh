# shellcheck shell=bash
# Sourced by Tests/systemd/run.sh and power-cuts.sh: the host's side before the Debian guest boots.
#   stage_host NAME CONTACTS   builds the release binaries; makes $work (removed at exit, with Radicale); starts
#                              Radicale on 127.0.0.1 with CONTACTS in alice's book (bench-radicale.sh: $port, $book);
#                              and puts what install.sh reads from a clone in $work/src, the binaries in $work/bin
# shellcheck disable=SC2034 # work, src and bin are the caller's

stage_host() {
    local name=$1 contacts=$2
    # shellcheck source=Deploy/lib/release-build.sh
    source Deploy/lib/release-build.sh
    echo "$name: building the release binaries ..." >&2
    # shellcheck disable=SC2119 # no extra build flags
    release_build
    local built
    built=$(dirname "$CONTACTBOX_BIN")

    work=$(mktemp -d)
    radicale_pid=
    trap stage_cleanup EXIT

    # shellcheck source=Deploy/lib/venv.sh
    source Deploy/lib/venv.sh
    ensure_venv >&2
    # shellcheck source=Deploy/lib/bench-radicale.sh
    source Deploy/lib/bench-radicale.sh
    mkdir -p "$work/radicale"
    radicale_configure "$work/radicale"
    radicale_start "$contacts"

    src=$work/src
    bin=$work/bin
    mkdir -p "$src/Deploy/lib" "$bin"
    cp -R Board "$src/"
    cp Deploy/install.sh Deploy/contactbox.service Deploy/contactbox.avahi.service Deploy/contactbox.example.toml \
        "$src/Deploy/"
    cp Deploy/lib/apt-ensure.sh Deploy/lib/release-build.sh "$src/Deploy/lib/"
    cp "$built/contactbox" "$built/contactbox-remote" "$bin/"
}

# shellcheck disable=SC2317 # called by the EXIT trap
stage_cleanup() {
    if [[ -n $radicale_pid ]]; then
        kill "$radicale_pid" 2>/dev/null || true
        wait "$radicale_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
