# shellcheck shell=bash
# Sourced by the Deploy scripts: the one way a release binary is built.
# --static-swift-stdlib: no Swift runtime to install on the box. lld with packed
# relative relocations (DT_RELR, glibc 2.36): the binary stays position-independent,
# but the loader no longer reads the relocations and dirties the pages they
# touch. -Osize: less code to page in. Deploy/bench/tricks.sh measures both on and
# off (Docs/memory.md, "The tricks").
RELEASE_FLAGS=(-c release --static-swift-stdlib -Xswiftc -Osize
    -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)

# release_build [swift build flags...]: builds and sets CONTACTBOX_BIN to the binary.
# The pages of a file just written stay dirty in the page cache until written back, and smaps counts them as
# Private_Dirty in a process that maps them: `sync` makes a fresh binary's pages clean before anything measures it.
release_build() {
    swift build "${RELEASE_FLAGS[@]}" "$@" >&2
    CONTACTBOX_BIN="$(swift build "${RELEASE_FLAGS[@]}" "$@" --show-bin-path)/contactbox"
    sync
}
