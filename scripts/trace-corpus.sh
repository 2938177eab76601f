#!/usr/bin/env bash
# trace-corpus.sh run OUT [--rev REV] [--bin RUNNER] [-- FILTER...]
# trace-corpus.sh compare A B
# trace-corpus.sh list
#
# The decision-identity check: a fixed corpus of short scenarios (presets x SACK on/off x
# random and bursty loss, reordering, delay spikes, request/response, bulk, tail loss,
# each controller), each run by the simulator's example runner with --trace and --pcap.
# A change that claims not to alter a decision (a speed-up, a refactoring) must leave
# every trace and every pcap byte-identical; `compare` says which ones differ and where.
#
#   run OUT      writes OUT/scenarios/NAME.toml, OUT/NAME.trace (the JSON-lines trace,
#                then the results line without its wall-clock field) and OUT/NAME.pcap.
#                OUT must not exist yet, or be a folder this script wrote (it has a
#                .trace-corpus marker); nothing else is overwritten.
#   --rev REV    run REV's simulator instead of the working tree's: REV is built in a
#                temporary git worktree (removed at the end) with its own target folder
#                under target/trace-corpus/ (kept, so a second run rebuilds little).
#   --bin PATH   use this already built runner (cargo build --release -p lossrec-sim
#                --example run) instead of building one.
#   FILTER       only the scenarios whose names contain one of these strings.
#   compare A B  byte-compares two run folders: prints each scenario that differs with its
#                first differing trace line; exit 1 if any does. Files in one folder only
#                (a filtered run) are counted, not compared.
#   list         prints the corpus's scenario names.
#
# Example: scripts/trace-corpus.sh run /tmp/before --rev main && \
#          scripts/trace-corpus.sh run /tmp/after && scripts/trace-corpus.sh compare /tmp/before /tmp/after
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
root=$(pwd)
usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

# corpus OUTDIR: writes the scenario files. Each is short (well under a second of CPU).
corpus() {
  python3 - "$1" <<'EOF'
import itertools, os, shutil, sys, glob
out = sys.argv[1]
os.makedirs(out, exist_ok=True)

PRESETS = ["rfc", "rfc3517-er", "reno-sack", "newreno-sack-eifel", "fack", "prr", "linux",
           "linux-classic", "linux-3.17-rtor", "linux-4.4-norack", "tlp-draft", "rack-tlp"]
# name -> (path, workload) TOML fragments; [sender] and [receiver] are added per arm.
PATHS = {
    "bernoulli": ("""[path]
rtt_ms = 40
rate_mbps = 10
queue_packets = 60
[path.loss]
model = "bernoulli"
p = 0.02
[path.ack_loss]
model = "bernoulli"
p = 0.01
""", """[workload]
kind = "flows"
flows = 4
segments = 120
arrival = "concurrent"
"""),
    "burst": ("""[path]
rtt_ms = 80
rate_mbps = 10
[path.loss]
model = "gilbert-elliott"
p_good_bad = 0.01
p_bad_good = 0.2
loss_good = 0.0
loss_bad = 0.6
""", """[workload]
kind = "flows"
flows = 3
segments = 150
"""),
    "reorder": ("""[path]
rtt_ms = 20
rate_mbps = 50
[path.reorder]
packets = [5, 6]
fraction = 0.02
delay_ms = 3
delay_max_ms = 12
[path.ack_reorder]
fraction = 0.01
delay_ms = 2
[path.loss]
model = "bernoulli"
p = 0.005
""", """[workload]
kind = "flows"
flows = 3
segments = 200
"""),
    "spikes": ("""[path]
rtt_ms = 50
rate_mbps = 10
[path.delay_spikes]
start_ms = 300
period_ms = 1500
extra_ms = 700
""", """[workload]
kind = "flows"
flows = 1
bytes = 1500000
"""),
    "reqresp": ("""[path]
rtt_ms = 60
rate_mbps = 10
[path.loss]
model = "tail"
count = 1
""", """[receiver_delack]
[workload]
kind = "request-response"
requests = 8
response_segments = 5
think_ms = 150
"""),
    "bulk": ("""[path]
rtt_ms = 30
rate_mbps = 40
queue_packets = 80
[path.loss]
model = "bernoulli"
p = 0.01
""", """[workload]
kind = "bulk"
flows = 2
duration_s = 2
"""),
}

def write(name, text):
    with open(os.path.join(out, name + ".toml"), "w") as f:
        f.write(text)

for (preset, (pname, (path, wl)), sack) in itertools.product(PRESETS, PATHS.items(), (True, False)):
    delack = "delayed_ack_ms = 40\n" if "[receiver_delack]" in wl else ""
    wl = wl.replace("[receiver_delack]\n", "")
    write(f"{preset}.{pname}.{'sack' if sack else 'nosack'}",
          f"seed = 3\nmax_time_s = 120\n{path}[receiver]\nsack = {'true' if sack else 'false'}\n{delack}"
          f"[sender]\npreset = \"{preset}\"\n{wl}")
# Every controller on the lossy paths (the presets above pick Reno, CUBIC or Linux's CUBIC).
for cc, base, pname in itertools.product(("reno", "cubic", "cubic-linux", "bbr"), ("linux", "rack-tlp"),
                                         ("bernoulli", "burst", "bulk")):
    path, wl = PATHS[pname]
    write(f"{base}-{cc}.{pname}.sack", f"seed = 5\nmax_time_s = 120\n{path}[sender]\npreset = \"{base}\"\n"
          f"cc = \"{cc}\"\n{wl}")
# The worked examples as they are.
for f in sorted(glob.glob("experiments/examples/*.toml")):
    shutil.copy(f, os.path.join(out, "example-" + os.path.basename(f)))
EOF
}

# build_runner REV: builds the example runner of REV (empty: the working tree); prints its path.
build_runner() {
  local rev=$1 tree=$root target=$root/target
  if [ -n "$rev" ]; then
    local sha; sha=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "trace-corpus: $rev is not a revision" >&2; exit 1; }
    tree="$root/target/trace-corpus/tree"
    git worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"
    git worktree add --detach --quiet "$tree" "$sha"
    # Expanded now: `tree` is local, gone when the trap runs (`set -u` made that fail and
    # left the worktree behind).
    # shellcheck disable=SC2064
    trap "git worktree remove --force '$tree' >/dev/null 2>&1 || rm -rf '$tree'; git worktree prune" EXIT
    target="$root/target/trace-corpus/target"
  fi
  echo "trace-corpus: building the runner (${rev:-working tree}) ..." >&2
  (cd "$tree" && CARGO_TARGET_DIR="$target" cargo build -q --release -p lossrec-sim --example run >&2)
  echo "$target/release/examples/run"
}

cmd=${1:-}; [ $# -gt 0 ] && shift
case "$cmd" in
  list)
    tmp=$(mktemp -d); corpus "$tmp"; (cd "$tmp" && ls -- *.toml | sed 's/\.toml$//'); rm -rf "$tmp" ;;
  run)
    out=${1:-}; [ -n "$out" ] || usage; shift
    rev="" bin="" filters=()
    while [ $# -gt 0 ]; do
      case "$1" in
        --rev) rev=${2:?--rev needs a revision}; shift 2 ;;
        --bin) bin=${2:?--bin needs a path}; shift 2 ;;
        --) shift; filters=("$@"); break ;;
        *) filters+=("$1"); shift ;;
      esac
    done
    if [ -e "$out" ] && [ ! -e "$out/.trace-corpus" ]; then
      echo "trace-corpus: $out exists and was not written by this script; give a new folder" >&2; exit 1
    fi
    mkdir -p "$out/scenarios"; touch "$out/.trace-corpus"
    corpus "$out/scenarios"
    [ -n "$bin" ] || bin=$(build_runner "$rev")
    [ -x "$bin" ] || { echo "trace-corpus: no runner at $bin" >&2; exit 1; }
    n=0
    for sc in "$out"/scenarios/*.toml; do
      name=$(basename "$sc" .toml)
      if [ ${#filters[@]} -gt 0 ]; then
        keep=0; for f in "${filters[@]}"; do [[ $name == *"$f"* ]] && keep=1; done
        [ $keep = 1 ] || continue
      fi
      # The runner prints the trace, then the results as one JSON line whose wall_s is
      # the only field that is not a function of the inputs: it is dropped.
      if ! "$bin" "$sc" --trace --pcap "$out/$name.pcap" 2>"$out/$name.err" |
          python3 -c 'import json, sys
lines = sys.stdin.read().splitlines()
res = json.loads(lines[-1]); res["sim"].pop("wall_s", None)
sys.stdout.write("".join(l + "\n" for l in lines[:-1]) + json.dumps(res, sort_keys=True) + "\n")' >"$out/$name.trace"; then
        echo "trace-corpus: $name failed (see $out/$name.err)" >&2
      fi
      n=$((n + 1))
    done
    echo "trace-corpus: $n scenario(s) traced into $out" >&2 ;;
  compare)
    a=${1:-} b=${2:-}; [ -n "$a" ] && [ -n "$b" ] || usage
    python3 - "$a" "$b" <<'EOF'
import os, sys
a, b = sys.argv[1:3]
names = lambda d: {f for f in os.listdir(d) if f.endswith((".trace", ".pcap"))}
na, nb = names(a), names(b)
bad = missing = 0
for f in sorted(na | nb):
    if f not in na or f not in nb:
        missing += 1; continue
    x, y = open(os.path.join(a, f), "rb").read(), open(os.path.join(b, f), "rb").read()
    if x == y:
        continue
    bad += 1
    if f.endswith(".trace"):
        lx, ly = x.split(b"\n"), y.split(b"\n")
        i = next((i for i, (p, q) in enumerate(zip(lx, ly)) if p != q), min(len(lx), len(ly)))
        print(f"DIFFERS {f} at line {i + 1}:\n  - {lx[i][:300].decode() if i < len(lx) else '<end>'}\n"
              f"  + {ly[i][:300].decode() if i < len(ly) else '<end>'}")
    else:
        print(f"DIFFERS {f}")
total = len(na & nb)
print(f"trace-corpus: {total - bad}/{total} files in both identical" + ("" if bad == 0 else f", {bad} differ")
      + ("" if missing == 0 else f"; {missing} in one folder only (a filtered run?), not compared"))
sys.exit(1 if bad else 0)
EOF
    ;;
  *) usage ;;
esac
