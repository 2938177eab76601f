#!/usr/bin/env bash
# The whole test suite: what the README's test command and CI (.ci/run) run.
# Installs what the tests need (tshark, the Python package and its test dependencies).
# Each stage's wall time is printed as it ends and in a table at the end (also when a
# stage fails: the table then names it), so a slow stage shows where the time goes.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

# The stage timer: `stage NAME` ends the running stage (recording its time) and starts NAME.
STAGE=""; STAGE_T0=0; SUITE_T0=$SECONDS
STAGE_NAMES=(); STAGE_SECS=()
TMP_DIRS=()
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
end_stage() {
  [ -n "$STAGE" ] || return 0
  local t=$((SECONDS - STAGE_T0))
  STAGE_NAMES+=("$STAGE"); STAGE_SECS+=("$t")
  printf '    (%s: %s)\n' "$STAGE" "$(mmss "$t")"
  STAGE=""
}
stage() { end_stage; STAGE="$1"; STAGE_T0=$SECONDS; step "$1"; }
summary() {
  local rc=$? failed="" i
  [ -n "$STAGE" ] && failed="$STAGE"
  end_stage
  for d in "${TMP_DIRS[@]+"${TMP_DIRS[@]}"}"; do rm -rf "$d"; done
  printf '\n==> time per stage\n'
  for i in "${!STAGE_NAMES[@]}"; do
    printf '  %7s  %s%s\n' "$(mmss "${STAGE_SECS[$i]}")" "${STAGE_NAMES[$i]}" \
      "$([ "${STAGE_NAMES[$i]}" = "$failed" ] && [ "$rc" -ne 0 ] && echo '   <- FAILED')"
  done
  printf '  %7s  total (%s)\n' "$(mmss $((SECONDS - SUITE_T0)))" "$([ "$rc" -eq 0 ] && echo passed || echo "FAILED, exit $rc")"
  exit "$rc"
}
trap summary EXIT
# Sums libtest's "test result: ok. N passed; F failed; I ignored" lines of a cargo log.
count_tests() {
  awk '/^test result:/ { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^ignored/) g += $i } }
       END { printf "%d passed, %d ignored", p, g }' "$1"
}

if ! command -v tshark >/dev/null 2>&1; then
  stage "installing tshark (the pcap tests read our captures with it)"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq tshark >/dev/null
fi

if ! command -v chromium >/dev/null 2>&1; then
  stage "installing chromium (python/tests/test_html.py opens the HTML pages headless)"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null \
    || echo "chromium could not be installed: the headless-browser test will skip"
fi

logs="$(mktemp -d)"
TMP_DIRS+=("$logs")

stage "Rust tests, debug build (engine, wire, simulator, scripts, the real wire, every fuzz seed in fuzz/seeds)"
if [ "$(id -u)" -eq 0 ] && [ -e /dev/net/tun ]; then
  echo "real-wire tests run (root, /dev/net/tun): namespaces lossrec-<pid>-*, TUN devices lr<pid>*"
else
  echo "real-wire tests SKIPPED: they need root and /dev/net/tun (CI has both)"
fi
# lossrec-testkit (its attack tests: 17.7 min in a debug build on a busy 2-core machine)
# runs in the next stage, optimised. --no-fail-fast: every failing test binary in one run.
cargo test --workspace --exclude lossrec-py --exclude lossrec-testkit --no-fail-fast --quiet 2>&1 | tee "$logs/debug.log"
echo "Rust tests, debug: $(count_tests "$logs/debug.log")"

stage "Rust tests, optimised with debug assertions (lossrec-testkit: the attack tests; profile test-opt)"
cargo test --profile test-opt -p lossrec-testkit --no-fail-fast --quiet 2>&1 | tee "$logs/opt.log"
# explain's 10 M-packet capture, generated on the fly, in bounded heap (issue 24).
cargo test --profile test-opt -p lossrec-capture --test ten_million --quiet -- --ignored 2>&1 | tee -a "$logs/opt.log"
echo "Rust tests, optimised: $(count_tests "$logs/opt.log")"

stage "clippy -D warnings (every crate)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

# Debian and Ubuntu's Python refuses `pip install` outside a virtual environment
# (PEP 668, externally-managed-environment): use the active one, or make .venv.
if [ -z "${VIRTUAL_ENV:-}" ]; then
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    stage "installing python3-venv (Debian/Ubuntu keep venv's pip in a separate package)"
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
  fi
  stage "using the virtual environment .venv"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  # shellcheck disable=SC1091
  . .venv/bin/activate
fi

stage "installing the Python package (maturin build of the Rust core)"
python3 -m pip install --quiet --disable-pip-version-check ".[test,dask,docs]"

stage "ruff and mypy on python/"
python3 -m ruff check python/
python3 -m mypy

stage "documentation site (scripts/docs.py: mkdocs build --strict of README, docs/, the CLI help, the notebook)"
docs_out="$(mktemp -d)"
TMP_DIRS+=("$docs_out")
python3 scripts/docs.py -o "$docs_out"

stage "conformance scripts (lossrec script)"
lossrec script crates/engine/tests/scripts


stage "quick reproductions (lossrec reproduce --all --quick)"
repro_out="$(mktemp -d)"
TMP_DIRS+=("$repro_out")
lossrec reproduce --all --quick -q -o "$repro_out"
cat "$repro_out/index.md"

stage "Python tests"
python3 -m pytest -q -rs python/tests

stage "nothing of the real wire is left behind"
if [ "$(id -u)" -eq 0 ]; then
  left="$(ip netns list | grep -c '^lossrec-' || true)"
  links="$(ip -o link | grep -c ': lr[0-9]' || true)"
  echo "lossrec namespaces: $left, lr* devices: $links"
  [ "$left" -eq 0 ] && [ "$links" -eq 0 ]
fi
end_stage
