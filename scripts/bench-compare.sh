#!/usr/bin/env bash
# bench-compare.sh BASE_REV [NEW_REV] [-r ROUNDS] [-t SECONDS] [-- FILTER...]
#
# Runs the simulator's criterion benchmarks (cargo bench -p lossrec-sim) of two revisions
# on this machine, interleaved — every round runs each benchmark once for each revision,
# the order alternating between rounds — and prints, per benchmark, the ratio of the new
# revision's time to the base's: its median over the rounds and its range. Measured side
# by side, a ratio is what a shared machine's load drift leaves alone: 1.10 means the new
# revision takes 10 % longer. A benchmark is called slower (faster) only when there are
# three rounds or more and the ratio of every one is above 1.02 (below 0.98).
#
#   BASE_REV   any git revision (a commit, a branch, HEAD~3)
#   NEW_REV    default: the working tree as it is, uncommitted changes included
#   -r N       rounds (default 3)
#   -t S       criterion measurement time per run, seconds (default 2; warm-up 1 s)
#   FILTER     benchmarks to run: a name (flows/10000) or part of names (per_ack); default all
#
# Each revision is built in a temporary git worktree (removed at the end) with its own
# target folder under target/bench-compare/ (kept, so that a second comparison rebuilds
# nothing that did not change). Both revisions must have the criterion benchmarks (crates/sim/benches/sim.rs
# using criterion); an older BASE_REV is refused with that reason.
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
root=$(pwd)

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
rounds=3 secs=2 base="" new="" filters=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage ;;
    -r) rounds=${2:?-r needs a number}; shift 2 ;;
    -t) secs=${2:?-t needs seconds}; shift 2 ;;
    --) shift; filters=("$@"); break ;;
    -*) echo "bench-compare: unknown option $1" >&2; usage ;;
    *) if [ -z "$base" ]; then base=$1; elif [ -z "$new" ]; then new=$1; else filters+=("$1"); fi; shift ;;
  esac
done
[ -n "$base" ] || usage
case "$rounds" in ''|*[!0-9]*|0) echo "bench-compare: -r must be a positive integer" >&2; exit 2 ;; esac

work="$root/target/bench-compare"
mkdir -p "$work"
results=$(mktemp -d)
cleanup() {
  rm -rf "$results"
  # The worktrees (made in subshells by build): the built targets stay, the trees go.
  for wt in "$work"/tree-*; do
    [ -d "$wt" ] && { git worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"; }
  done
  git worktree prune
}
trap cleanup EXIT

# has_criterion REV: whether that revision's simulator benchmarks use criterion.
has_criterion() {
  git show "$1:crates/sim/Cargo.toml" 2>/dev/null | grep -q '^criterion'
}

# build NAME REV: builds REV's benchmark binary (REV empty: the working tree); prints its path.
build() {
  local name=$1 rev=$2 tree target
  if [ -z "$rev" ]; then
    tree=$root
    grep -q '^criterion' crates/sim/Cargo.toml || { echo "bench-compare: the working tree has no criterion benchmarks" >&2; exit 1; }
  else
    local sha; sha=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "bench-compare: $rev is not a revision" >&2; exit 1; }
    has_criterion "$sha" || { echo "bench-compare: $rev ($sha) predates the criterion benchmarks (crates/sim/benches/sim.rs); compare revisions that have them" >&2; exit 1; }
    tree="$work/tree-$name"
    git worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"
    git worktree add --detach --quiet "$tree" "$sha"
  fi
  target="$work/target-$name"
  echo "bench-compare: building $name (${rev:-working tree}) ..." >&2
  (cd "$tree" && CARGO_TARGET_DIR="$target" cargo bench -q -p lossrec-sim --bench sim --no-run \
      --message-format=json 2>/dev/null) |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "sim":
        print(m["executable"])' | tail -1
}

bin_base=$(build base "$base")
bin_new=$(build new "$new")
[ -x "$bin_base" ] && [ -x "$bin_new" ] || { echo "bench-compare: a build failed (run cargo bench -p lossrec-sim --no-run in it)" >&2; exit 1; }

# The benchmarks both revisions have (and the filters select).
list() { "$1" --bench --list 2>/dev/null | sed -n 's/: benchmark$//p'; }
mapfile -t ids < <(comm -12 <(list "$bin_base" | sort) <(list "$bin_new" | sort))
if [ ${#filters[@]} -gt 0 ]; then
  # A filter naming a benchmark exactly selects it alone (flows/1000 is not flows/10000);
  # any other filter selects the benchmarks whose names contain it.
  mapfile -t ids < <(printf '%s\n' "${ids[@]}" | python3 -c 'import sys
ids = sys.stdin.read().split()
fs = sys.argv[1:]
print("\n".join(i for i in ids if any(f == i or (f not in ids and f in i) for f in fs)))' "${filters[@]}")
fi
[ ${#ids[@]} -gt 0 ] || { echo "bench-compare: no benchmark in common matches" >&2; exit 1; }
echo "bench-compare: ${#ids[@]} benchmark(s) x $rounds round(s), base ${base} vs ${new:-working tree}" >&2

# run NAME BIN ROUND ID: one criterion run; appends "id name round median_ns" to the results.
run() {
  local home="$results/$1-$3"
  CRITERION_HOME="$home" "$2" --bench --exact "$4" --warm-up-time 1 --measurement-time "$secs" \
    --noplot >/dev/null 2>&1 || { echo "bench-compare: $4 failed for $1" >&2; return; }
  python3 - "$home/$4/new/estimates.json" "$4" "$1" "$3" >>"$results/all" <<'EOF'
import json, sys
est = json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], sys.argv[4], est["median"]["point_estimate"])
EOF
}

for r in $(seq 1 "$rounds"); do
  for id in "${ids[@]}"; do
    echo "bench-compare: round $r/$rounds: $id" >&2
    if [ $((r % 2)) -eq 1 ]; then
      run base "$bin_base" "$r" "$id"; run new "$bin_new" "$r" "$id"
    else
      run new "$bin_new" "$r" "$id"; run base "$bin_base" "$r" "$id"
    fi
  done
done

python3 - "$results/all" "$base" "${new:-working tree}" <<'EOF'
import statistics, sys
from collections import defaultdict
t = defaultdict(dict)  # (id, round) -> {name: ns}
order = []
for line in open(sys.argv[1]):
    i, name, r, ns = line.split()
    t[(i, r)][name] = float(ns)
    if i not in order:
        order.append(i)
def fmt(ns):
    for unit, k in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= k:
            return f"{ns / k:.3g} {unit}"
    return f"{ns:.3g} ns"
rows = []
for i in order:
    pairs = [v for (j, _), v in t.items() if j == i and {"base", "new"} <= set(v)]
    if not pairs:
        continue
    ratios = sorted(p["new"] / p["base"] for p in pairs)
    med = statistics.median(ratios)
    lo, hi = ratios[0], ratios[-1]
    # A verdict only when at least three rounds all agree beyond 2 % (criterion's own
    # noise band); fewer rounds are too easily fooled by a shared machine's load.
    if len(ratios) < 3:
        verdict = "(3 rounds or more for a verdict)"
    else:
        verdict = "slower" if lo > 1.02 else "faster" if hi < 0.98 else "same (within noise)"
    rows.append((i, fmt(statistics.median(p["base"] for p in pairs)),
                 fmt(statistics.median(p["new"] for p in pairs)), f"{med:.3f}",
                 f"{lo:.3f}..{hi:.3f}", str(len(pairs)), verdict))
head = ("benchmark", "base (median)", "new (median)", "new/base", "range", "rounds", "")
w = [max(len(r[k]) for r in rows + [head]) for k in range(len(head))]
print(f"base: {sys.argv[2]}   new: {sys.argv[3]}   (time per iteration; ratio > 1: the new one is slower)")
for r in [head] + rows:
    print("  ".join(c.ljust(w[k]) if k in (0, 6) else c.rjust(w[k]) for k, c in enumerate(r)).rstrip())
EOF
