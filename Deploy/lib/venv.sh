# shellcheck shell=bash
# Sourced by Deploy/test.sh and the benchmarks: ensure_venv makes .venv/ with the
# pinned Radicale (the CardDAV server of the integration tests) and vdirsyncer
# (the benchmark's reference client), and hypercorn, which Radicale's `[server]
# type = hypercorn` needs to serve HTTP/2 over TLS (the TLS tests; 0.18.0 breaks
# WSGI responses with an empty body: 500 to MKCOL and PUT). No network when they
# are installed.

ensure_venv() {
    RADICALE_VERSION=3.9.0
    VDIRSYNCER_VERSION=0.21.0
    HYPERCORN_VERSION=0.17.3
    venv_versions() {
        .venv/bin/python -c 'import importlib.metadata as m; print(*(m.version(p) for p in ("radicale", "vdirsyncer", "hypercorn")))' \
            2>/dev/null || true
    }
    if ! .venv/bin/python -c '' 2>/dev/null; then
        rm -rf .venv  # missing, or made by a Python that is gone
        python3 -m venv .venv
    fi
    if [[ ! -x .venv/bin/radicale || "$(venv_versions)" != "$RADICALE_VERSION $VDIRSYNCER_VERSION $HYPERCORN_VERSION" ]]; then
        echo "test.sh: installing radicale==$RADICALE_VERSION vdirsyncer==$VDIRSYNCER_VERSION hypercorn==$HYPERCORN_VERSION into .venv"
        .venv/bin/python -m pip install -q --disable-pip-version-check \
            "radicale==$RADICALE_VERSION" "vdirsyncer==$VDIRSYNCER_VERSION" "hypercorn==$HYPERCORN_VERSION"
    fi
}
