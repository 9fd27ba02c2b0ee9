# shellcheck shell=bash
# Tools that only scripts/record-captures needs (never the tests, so CI does not install them): the
# h2-* scenarios' HTTP/2 clients `nghttp` and `h2load` (Debian package nghttp2-client) and the python
# module hpack for scripts/lib/h2-peer.py (PyPI `h2`, which brings hpack and hyperframe); the quic-*
# scenarios' aioquic venv (below).
# record-captures installs them once when they are missing (like chromium/playwright for browser-har);
# `WIRETALLY_RECORD_TOOLS=1 scripts/setup` installs them up front.
h2_tools_ready() {
    command -v nghttp >/dev/null && command -v h2load >/dev/null && python3 -c 'import hpack' 2>/dev/null
}
install_h2_tools() {
    local sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    if ! command -v nghttp >/dev/null || ! command -v h2load >/dev/null; then
        DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends nghttp2-client >/dev/null 2>&1 \
            || { $sudo_cmd apt-get update -qq >/dev/null 2>&1 \
                 && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends nghttp2-client >/dev/null 2>&1; } \
            || true
    fi
    python3 -c 'import hpack' 2>/dev/null || python3 -m pip install -q h2 >/dev/null 2>&1 \
        || python3 -m pip install -q --break-system-packages h2 >/dev/null 2>&1 || true
    h2_tools_ready
}
h2_tool_versions() {  # for captures/RECORDING.txt
    echo "nghttp: $(nghttp --version 2>/dev/null | head -1)"
    echo "h2load: $(h2load --version 2>/dev/null | head -1)"
    echo "h2-peer: python $(python3 -c 'import sys, importlib.metadata as m; print("%d.%d.%d" % sys.version_info[:3], "h2", m.version("h2"), "hpack", m.version("hpack"))' 2>/dev/null)"
}

# A venv of pinned PyPI packages: ready when its python runs, the pins it was made from are
# REQUIREMENTS' and the IMPORTS (a python statement) work; install_venv makes it from scratch.
venv_ready() {  # VENV REQUIREMENTS IMPORTS
    [ -x "$1/bin/python" ] && cmp -s "$2" "$1/wiretally-requirements.txt" && "$1/bin/python" -c "$3" 2>/dev/null
}
install_venv() {  # VENV REQUIREMENTS
    rm -rf "$1"
    mkdir -p "$(dirname "$1")"
    python3 -m venv "$1" >/dev/null 2>&1 || {
        echo "record-tools: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; return 1; }
    "$1/bin/python" -m pip install -q --disable-pip-version-check -r "$2" >/dev/null 2>&1 || {
        echo "record-tools: pip install -r $2 failed (is PyPI reachable?)" >&2; return 1; }
    cp "$2" "$1/wiretally-requirements.txt"
}

# The `quic` scenario's HTTP/3 peer (scripts/lib/h3-peer.py) runs on aioquic from PyPI, pinned with its
# dependencies in scripts/lib/quic-requirements.txt and installed into a venv of its own (it needs a
# newer `cryptography` than other python tools may want): WIRETALLY_QUIC_VENV, default
# ~/.cache/wiretally/quic-venv. record-captures installs it once when missing or when the pins changed
# (`WIRETALLY_RECORD_TOOLS=1 scripts/setup` does it up front); QUIC_PY is the venv's python.
QUIC_VENV=${WIRETALLY_QUIC_VENV:-${HOME:-/root}/.cache/wiretally/quic-venv}
QUIC_PY=$QUIC_VENV/bin/python
QUIC_REQUIREMENTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/quic-requirements.txt
quic_tools_ready() { venv_ready "$QUIC_VENV" "$QUIC_REQUIREMENTS" 'import aioquic.h3.connection, aioquic.asyncio, pylsqpack'; }
install_quic_tools() { install_venv "$QUIC_VENV" "$QUIC_REQUIREMENTS" && quic_tools_ready; }
quic_tool_versions() {  # for captures/RECORDING.txt
    echo "h3-peer: python $("$QUIC_PY" -c 'import sys, importlib.metadata as m; print("%d.%d.%d" % sys.version_info[:3], "aioquic", m.version("aioquic"), "pylsqpack", m.version("pylsqpack"), "cryptography", m.version("cryptography"))' 2>/dev/null)"
}

# The `codings` scenario's server (scripts/lib/codings-server.py) encodes br and zstd with python's
# brotli and zstandard from PyPI, pinned in scripts/lib/codings-requirements.txt and installed into a venv
# of their own like aioquic's: WIRETALLY_CODINGS_VENV, default ~/.cache/wiretally/codings-venv;
# CODINGS_PY is the venv's python.
CODINGS_VENV=${WIRETALLY_CODINGS_VENV:-${HOME:-/root}/.cache/wiretally/codings-venv}
CODINGS_PY=$CODINGS_VENV/bin/python
CODINGS_REQUIREMENTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/codings-requirements.txt
codings_tools_ready() { venv_ready "$CODINGS_VENV" "$CODINGS_REQUIREMENTS" 'import brotli, zstandard'; }
install_codings_tools() { install_venv "$CODINGS_VENV" "$CODINGS_REQUIREMENTS" && codings_tools_ready; }
codings_tool_versions() {  # for captures/RECORDING.txt
    echo "codings-server: python $("$CODINGS_PY" -c 'import sys, importlib.metadata as m; print("%d.%d.%d" % sys.version_info[:3], "brotli", m.version("brotli"), "zstandard", m.version("zstandard"))' 2>/dev/null)"
}
