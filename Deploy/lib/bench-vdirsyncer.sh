# shellcheck shell=bash
# Sourced by the sync benchmarks: vdirsyncer, the peer they compare with, syncing a CardDAV book into a folder.
#   vdirsyncer_run BOOK FOLDER [PREFIX...]
#       writes $work/vdirsyncer.conf (the book as the bench user alice with $work/password, the status beside
#       FOLDER), discovers, then syncs sampled by footprint_run, behind PREFIX if given (a CPU cap); sets wall_s ...
vdirsyncer_run() {
    local book=$1 folder=$2
    shift 2
    rm -rf "$folder.status" && mkdir -p "$folder"
    # shellcheck disable=SC2154 # work: Deploy/lib/bench-work.sh
    cat >"$work/vdirsyncer.conf" <<CONF
[general]
status_path = "$folder.status/"
[pair bench]
a = "server"
b = "folder"
collections = null
[storage server]
type = "carddav"
url = "$book"
username = "alice"
password.fetch = ["command", "cat", "$work/password"]
${REQUESTS_CA_BUNDLE:+verify = \"$REQUESTS_CA_BUNDLE\"}
[storage folder]
type = "filesystem"
path = "$folder/"
fileext = ".vcf"
CONF
    .venv/bin/vdirsyncer -c "$work/vdirsyncer.conf" discover >/dev/null 2>&1 </dev/null
    footprint_run "$work/vds-fp" "$@" .venv/bin/vdirsyncer -c "$work/vdirsyncer.conf" sync \
        >/dev/null 2>"$work/vds-err" </dev/null || { cat "$work/vds-err" >&2 && exit 1; }
}
