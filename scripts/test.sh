#!/usr/bin/env bash
# The whole test suite: what the README's test command and CI (.ci/run) run.
# Installs what the tests need (tshark, the Python package and its test dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

if ! command -v tshark >/dev/null 2>&1; then
  step "installing tshark (the pcap tests read our captures with it)"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq tshark >/dev/null
fi

if ! command -v chromium >/dev/null 2>&1; then
  step "installing chromium (python/tests/test_html.py opens the HTML pages headless)"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null \
    || echo "chromium could not be installed: the headless-browser test will skip"
fi

step "Rust tests (engine, wire, simulator, scripts, the real wire, every fuzz seed in fuzz/seeds)"
if [ "$(id -u)" -eq 0 ] && [ -e /dev/net/tun ]; then
  echo "real-wire tests run (root, /dev/net/tun): namespaces lossrec-<pid>-*, TUN devices lr<pid>*"
else
  echo "real-wire tests SKIPPED: they need root and /dev/net/tun (CI has both)"
fi
cargo test --workspace --exclude lossrec-py --quiet

step "clippy -D warnings (every crate)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

# Debian and Ubuntu's Python refuses `pip install` outside a virtual environment
# (PEP 668, externally-managed-environment): use the active one, or make .venv.
if [ -z "${VIRTUAL_ENV:-}" ]; then
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    step "installing python3-venv (Debian/Ubuntu keep venv's pip in a separate package)"
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
  fi
  step "using the virtual environment .venv"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  # shellcheck disable=SC1091
  . .venv/bin/activate
fi

step "installing the Python package (maturin build of the Rust core)"
python3 -m pip install --quiet --disable-pip-version-check ".[test,dask]"

step "ruff and mypy on python/"
python3 -m ruff check python/
python3 -m mypy

step "conformance scripts (lossrec script)"
lossrec script crates/engine/tests/scripts


step "quick reproductions (lossrec reproduce --all --quick)"
repro_out="$(mktemp -d)"
trap 'rm -rf "$repro_out"' EXIT
lossrec reproduce --all --quick -q -o "$repro_out"
cat "$repro_out/index.md"

step "Python tests"
python3 -m pytest -q -rs python/tests

step "nothing of the real wire is left behind"
if [ "$(id -u)" -eq 0 ]; then
  left="$(ip netns list | grep -c '^lossrec-' || true)"
  links="$(ip -o link | grep -c ': lr[0-9]' || true)"
  echo "lossrec namespaces: $left, lr* devices: $links"
  [ "$left" -eq 0 ] && [ "$links" -eq 0 ]
fi
