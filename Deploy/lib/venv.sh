# shellcheck shell=bash
# Sourced by Deploy/test.sh and the benchmarks: ensure_venv makes .venv/ with the
# pinned Radicale and Xandikos (CardDAV servers of the integration tests) and
# vdirsyncer (the benchmark's reference client). No network when they are installed.

ensure_venv() {
    RADICALE_VERSION=3.9.0
    VDIRSYNCER_VERSION=0.21.0
    XANDIKOS_VERSION=0.4.10
    local wanted="$RADICALE_VERSION $VDIRSYNCER_VERSION $XANDIKOS_VERSION"
    venv_versions() {
        .venv/bin/python -c 'import importlib.metadata as m
print(m.version("radicale"), m.version("vdirsyncer"), m.version("xandikos"))' 2>/dev/null || true
    }
    if ! .venv/bin/python -c '' 2>/dev/null; then
        rm -rf .venv  # missing, or made by a Python that is gone
        python3 -m venv .venv
    fi
    if [[ ! -x .venv/bin/radicale || ! -x .venv/bin/xandikos || "$(venv_versions)" != "$wanted" ]]; then
        echo "test.sh: installing radicale==$RADICALE_VERSION vdirsyncer==$VDIRSYNCER_VERSION" \
            "xandikos==$XANDIKOS_VERSION into .venv"
        .venv/bin/python -m pip install -q --disable-pip-version-check \
            "radicale==$RADICALE_VERSION" "vdirsyncer==$VDIRSYNCER_VERSION" "xandikos==$XANDIKOS_VERSION"
    fi
}
