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
#   --cpu      time by thread CPU time instead, with the example runner crates/sim/
#              examples/bench.rs (a shared machine's waits for a core do not count):
#              FILTER names its arms (bulk, short_flows, per_ack/FAMILY/N,
#              app_limited/FAMILY/N, or all; default: bulk, short_flows and every family's
#              per-ACK arm at 100 ... 1M in flight); -t is each run's CPU seconds (default 1)
#   --json F   with --cpu, also write the results to F as JSON: the CPU model, each
#              round's figures, the ratios
#
# Each revision is built in a temporary git worktree (removed at the end) with its own
# target folder under target/bench-compare/ (kept, so that a second comparison rebuilds
# nothing that did not change). Both revisions must have the criterion benchmarks
# (crates/sim/benches/sim.rs using criterion) or, with --cpu, the example runner; an older
# BASE_REV is refused with that reason.
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
root=$(pwd)

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 2; }
rounds=3 secs="" base="" new="" filters=() cpu=0 json=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage ;;
    -r) rounds=${2:?-r needs a number}; shift 2 ;;
    -t) secs=${2:?-t needs seconds}; shift 2 ;;
    --cpu) cpu=1; shift ;;
    --json) json=${2:?--json needs a file}; shift 2 ;;
    --) shift; filters=("$@"); break ;;
    -*) echo "bench-compare: unknown option $1" >&2; usage ;;
    *) if [ -z "$base" ]; then base=$1; elif [ -z "$new" ]; then new=$1; else filters+=("$1"); fi; shift ;;
  esac
done
[ -n "$base" ] || usage
case "$rounds" in ''|*[!0-9]*|0) echo "bench-compare: -r must be a positive integer" >&2; exit 2 ;; esac
[ -z "$json" ] || [ $cpu = 1 ] || { echo "bench-compare: --json needs --cpu" >&2; exit 2; }

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

if [ $cpu = 1 ]; then
  # build_cpu NAME REV: builds REV's CPU-time runner (REV empty: the working tree); prints its path.
  build_cpu() {
    local name=$1 rev=$2 tree=$root target
    if [ -n "$rev" ]; then
      local sha; sha=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "bench-compare: $rev is not a revision" >&2; exit 1; }
      git cat-file -e "$sha:crates/sim/examples/bench.rs" 2>/dev/null ||
        { echo "bench-compare: $rev ($sha) predates the CPU-time runner (crates/sim/examples/bench.rs); compare revisions that have it" >&2; exit 1; }
      tree="$work/tree-$name"
      git worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"
      git worktree add --detach --quiet "$tree" "$sha"
    fi
    # The working tree builds in its own target folder (what cargo build --release made).
    target="$work/target-$name"; [ -n "$rev" ] || target=${CARGO_TARGET_DIR:-$root/target}
    echo "bench-compare: building $name (${rev:-working tree}) ..." >&2
    (cd "$tree" && CARGO_TARGET_DIR="$target" cargo build -q --release -p lossrec-sim --example bench >&2)
    echo "$target/release/examples/bench"
  }
  bin_base=$(build_cpu base "$base")
  bin_new=$(build_cpu new "$new")
  if [ ${#filters[@]} -eq 0 ]; then
    filters=(bulk short_flows)
    for f in rfc prr linux rack-tlp bbr; do
      for n in 100 10000 100000 400000 1000000; do filters+=("per_ack/$f/$n"); done
    done
  elif [ "${filters[*]}" = all ]; then
    mapfile -t filters < <("$bin_new" --list)
  fi
  # Every round runs each arm once per revision, the order alternating between rounds.
  for r in $(seq 1 "$rounds"); do
    for id in "${filters[@]}"; do
      echo "bench-compare: round $r/$rounds: $id" >&2
      order=(base new); [ $((r % 2)) -eq 1 ] || order=(new base)
      for name in "${order[@]}"; do
        b=$bin_base; [ "$name" = new ] && b=$bin_new
        "$b" --cpu-s "${secs:-1}" "$id" 2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
for arm, v in d["arms"].items():
    print(json.dumps({"arm": arm, "name": sys.argv[1], "round": int(sys.argv[2]), "unit": v["unit"],
                      "median": v["median"], "runs": len(v["runs"]), "cpu_model": d["cpu_model"]}))' \
          "$name" "$r" >>"$results/all" || echo "bench-compare: $id failed for $name" >&2
      done
    done
  done
  python3 - "$results/all" "$base" "${new:-working tree}" "$json" <<'PY'
import json, statistics, sys
from collections import defaultdict
rows = [json.loads(l) for l in open(sys.argv[1])]
t = defaultdict(dict)
order = []
for r in rows:
    t[(r["arm"], r["round"])][r["name"]] = r
    if r["arm"] not in order:
        order.append(r["arm"])
out = {"base": sys.argv[2], "new": sys.argv[3], "clock": "thread_cpu",
       "cpu_model": rows[0]["cpu_model"] if rows else "unknown", "arms": {}}
print(f"base: {sys.argv[2]}   new: {sys.argv[3]}   CPU: {out['cpu_model']}"
      "   (CPU time per unit; ratio > 1: the new one is slower)")
head = ("arm", "unit", "base (median)", "new (median)", "new/base", "range", "rounds", "")
lines = []
for a in order:
    pairs = [v for (arm, _), v in t.items() if arm == a and {"base", "new"} <= set(v)]
    if not pairs:
        continue
    ratios = sorted(p["new"]["median"] / p["base"]["median"] for p in pairs)
    med, lo, hi = statistics.median(ratios), ratios[0], ratios[-1]
    # A verdict only when at least three rounds all agree beyond 2 %.
    verdict = ("(3 rounds or more for a verdict)" if len(ratios) < 3 else
               "slower" if lo > 1.02 else "faster" if hi < 0.98 else "same (within noise)")
    b = statistics.median(p["base"]["median"] for p in pairs)
    n = statistics.median(p["new"]["median"] for p in pairs)
    unit = pairs[0]["new"]["unit"]
    out["arms"][a] = {"unit": unit, "base_median": b, "new_median": n, "ratio_median": med,
                      "ratio_min": lo, "ratio_max": hi, "rounds": len(pairs), "verdict": verdict,
                      "base_by_round": [p["base"]["median"] for p in pairs],
                      "new_by_round": [p["new"]["median"] for p in pairs]}
    lines.append((a, unit, f"{b:.1f}", f"{n:.1f}", f"{med:.3f}", f"{lo:.3f}..{hi:.3f}",
                  str(len(pairs)), verdict))
w = [max(len(r[k]) for r in lines + [head]) for k in range(len(head))]
for r in [head] + lines:
    print("  ".join(c.ljust(w[k]) if k in (0, 1, 7) else c.rjust(w[k]) for k, c in enumerate(r)).rstrip())
if sys.argv[4]:
    with open(sys.argv[4], "w") as f:
        json.dump(out, f, indent=1)
PY
  exit 0
fi

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
  CRITERION_HOME="$home" "$2" --bench --exact "$4" --warm-up-time 1 --measurement-time "${secs:-2}" \
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
