#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets/) for the given time each, default 60 s:
#   scripts/fuzz.sh [seconds] [target ...]
# Needs the nightly toolchain (libFuzzer's sanitizer flags); installs cargo-fuzz if missing.
# Each target starts from its committed seeds (fuzz/seeds/<target>/) plus what earlier runs
# found (fuzz/corpus/<target>/, not committed); crashes land in fuzz/artifacts/<target>/.
# Debug assertions are on, so the engine's own invariant checks run (sender/invariants.rs).
# The stable test suite runs every seed as a regression test (crates/fuzz/tests/corpus.rs);
# a finding's seed also gets a test of what it reaches (crates/fuzz/tests/regression_seeds.rs).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

secs="${1:-60}"
shift || true

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "installing the nightly toolchain (cargo-fuzz needs it)"
  rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

cargo +nightly fuzz build --debug-assertions

status=0
summary=""
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  log="artifacts/$t/last-run.log"
  printf '\n==> %s: %s s\n' "$t" "$secs"
  if cargo +nightly fuzz run --debug-assertions "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    >"$log" 2>&1; then
    result="no findings"
  else
    result="FINDING: see $log and artifacts/$t/"
    status=1
  fi
  execs="$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')"
  tail -n 4 "$log"
  summary+="$(printf '%-20s %12s executions  %s' "$t" "${execs:-?}" "$result")"$'\n'
done
printf '\n%s' "$summary"
exit "$status"
