#!/usr/bin/env bash
# Re-freeze the expected verdicts of every study (experiments/<study>/expected.toml), full
# and quick, from fresh runs of this checkout; then review `git diff experiments/*/expected.toml`
# and commit it with one line of reason per changed verdict.
#
#   scripts/freeze-verdicts.sh [OUT]      (OUT defaults to out/freeze; reused to resume)
#
# The full run takes several minutes (progress on stderr); an interrupted run resumes when
# the script is run again with the same OUT. The kernel study runs through the real wire
# (root and TUN); live timing makes a verdict or two of it vary between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-out/freeze}"
lossrec reproduce --all --freeze -o "$out/full"
lossrec reproduce --all --quick --freeze -o "$out/quick"
git --no-pager diff --stat -- 'experiments/*/expected.toml' || true
