# shellcheck shell=bash
# Sourced by Deploy/test.sh and the benchmarks: ensure_venv makes .venv/ with the
# pinned Radicale and Xandikos (CardDAV servers of the integration tests),
# vdirsyncer (the benchmark's reference client), and hypercorn, which Radicale's
# `[server] type = hypercorn` needs to serve HTTP/2 over TLS (the TLS tests; 0.18.0
# breaks WSGI responses with an empty body: 500 to MKCOL and PUT). No network when
# they are installed.

ensure_venv() {
    local packages=(radicale==3.9.0 vdirsyncer==0.21.0 xandikos==0.4.10 hypercorn==0.17.3)
    venv_versions() {
        .venv/bin/python -c 'import importlib.metadata as m, sys
print(" ".join(f"{p}=={m.version(p)}" for p in sys.argv[1:]))' "${packages[@]%%==*}" 2>/dev/null || true
    }
    if ! .venv/bin/python -c '' 2>/dev/null; then
        rm -rf .venv  # missing, or made by a Python that is gone
        python3 -m venv .venv
    fi
    if [[ "$(venv_versions)" != "${packages[*]}" ]]; then
        echo "test.sh: installing ${packages[*]} into .venv"
        .venv/bin/python -m pip install -q --disable-pip-version-check "${packages[@]}"
    fi
}
