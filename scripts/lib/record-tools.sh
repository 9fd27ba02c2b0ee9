# shellcheck shell=bash
# Tools that only scripts/record-captures needs (never the tests, so CI does not install them): the
# h2-* scenarios' HTTP/2 clients `nghttp` and `h2load` (Debian package nghttp2-client) and the python
# module hpack for scripts/lib/h2-peer.py (PyPI `h2`, which brings hpack and hyperframe).
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
