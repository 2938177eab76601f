#!/usr/bin/env bash
# Runs the Linux community's own loss-recovery packetdrill scripts, unmodified, against the
# engine under `--preset linux`, and prints one row per script and the totals.
#
#   scripts/upstream-conformance.sh PACKETDRILL_CHECKOUT [KERNEL_CHECKOUT]
#
# PACKETDRILL_CHECKOUT: a clone of github.com/google/packetdrill (its gtests/net/tcp/
#   fast_retransmit, fast_recovery, sack, slow_start, cubic, limited_transmit and
#   cwnd_moderation directories are run).
# KERNEL_CHECKOUT: a Linux tree, or its tools/testing/selftests/net/packetdrill directory
#   (tcp_fast_recovery_*, tcp_dsack_mult, tcp_slow_start_*, tcp_sack_*,
#   tcp_limited_transmit_*).
#
# The scripts are GPL and stay where they are: nothing is copied. `defaults.sh` is read
# from next to each script, as packetdrill runs it. Outbound packets no line expects are
# judged as packetdrill judges them (`--lenient`). Each script runs twice: as packetdrill
# compares (PSH included), and without comparing PSH, to show the first other difference
# of a script that differs only there (see docs/conformance.md, "PSH").
#
# LOSSREC (default: `lossrec` on PATH) names the CLI to run.
#
# UPSTREAM_KNOWN_FAILURES (default: upstream-known-failures.tsv next to this script) lists
# the scripts that fail for a known reason — mostly because the kernel the `linux` preset
# follows fails them too (the scripts were written for other kernel versions or HZ) — one
# `SCRIPT<TAB>LINE<TAB>REASON` a line, SCRIPT as in the table's first column. A script that
# fails at its listed line is `known-fail` with the reason and does not fail the run; at
# another line it is a new `fail`.
set -uo pipefail

KNOWN=${UPSTREAM_KNOWN_FAILURES:-$(dirname "$0")/upstream-known-failures.tsv}

# The known reason for SCRIPT failing at LINE, or nothing.
known_reason() {
  [ -r "$KNOWN" ] || return 0
  awk -F'\t' -v s="$1" -v l="$2" '!/^#/ && $1 == s && $2 == l { print $3; exit }' "$KNOWN"
}

usage() { echo "usage: $0 PACKETDRILL_CHECKOUT [KERNEL_CHECKOUT]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
LOSSREC=${LOSSREC:-lossrec}
command -v "${LOSSREC%% *}" >/dev/null 2>&1 || {
  echo "$0: \`$LOSSREC\` not found: install the package (pip install .) or set LOSSREC" >&2
  exit 2
}

PD=$1/gtests/net/tcp
[ -d "$PD" ] || { echo "$0: $1 is not a packetdrill checkout (no gtests/net/tcp)" >&2; exit 2; }
google=()
for d in fast_retransmit fast_recovery sack slow_start cubic limited_transmit cwnd_moderation; do
  for f in "$PD/$d"/*.pkt; do [ -e "$f" ] && google+=("$f"); done
done

kernel=()
if [ $# -eq 2 ]; then
  KD=$2
  [ -d "$KD/tools/testing/selftests/net/packetdrill" ] && KD=$KD/tools/testing/selftests/net/packetdrill
  [ -e "$KD/defaults.sh" ] || { echo "$0: $2 has no selftests/net/packetdrill/defaults.sh" >&2; exit 2; }
  for p in 'tcp_fast_recovery_*' 'tcp_dsack_mult*' 'tcp_slow_start_*' 'tcp_sack_*' 'tcp_limited_transmit_*'; do
    for f in "$KD"/$p.pkt; do [ -e "$f" ] && kernel+=("$f"); done
  done
fi

# One script: prints `RESULT<TAB>DETAIL` where RESULT is pass, pass-but-psh, unsupported or
# fail, and DETAIL the first failure line (without the file name).
judge() {
  local f=$1 out detail
  out=$($LOSSREC script --preset linux --lenient "$f" 2>&1)
  if [ $? -eq 0 ]; then printf 'pass\t\n'; return; fi
  detail=$(printf '%s\n' "$out" | grep -m1 -F "$f:" | sed "s|^$f:||")
  if printf '%s' "$detail" | grep -q 'unsupported: '; then
    printf 'unsupported\t%s\n' "$detail"; return
  fi
  if $LOSSREC script --preset linux --lenient --ignore-psh "$f" >/dev/null 2>&1; then
    printf 'pass-but-psh\t%s\n' "$detail"; return
  fi
  detail=$($LOSSREC script --preset linux --lenient --ignore-psh "$f" 2>&1 | grep -m1 -F "$f:" | sed "s|^$f:||")
  printf 'fail\t%s\n' "$detail"
}

total_pass=0; total_fail=0; total_known=0
suite() {
  local name=$1; shift
  local pass=0 fail=0 nopsh=0 n=0 known=0 rel why
  [ $# -gt 0 ] || return 0
  printf '\n## %s\n\n| script | result | first difference |\n|---|---|---|\n' "$name"
  for f in "$@"; do
    n=$((n + 1))
    IFS=$'\t' read -r res detail < <(judge "$f")
    rel=${f#"$ROOT"}
    if [ "$res" = fail ] && why=$(known_reason "$rel" "${detail%%:*}") && [ -n "$why" ]; then
      res="known-fail"; detail="$detail (known: $why)"; known=$((known + 1))
    fi
    case $res in
      pass) pass=$((pass + 1)); nopsh=$((nopsh + 1)) ;;
      pass-but-psh) fail=$((fail + 1)); nopsh=$((nopsh + 1)) ;;
      *) fail=$((fail + 1)) ;;
    esac
    printf '| %s | %s | %s |\n' "$rel" "$res" "${detail//|/\\|}"
  done
  local k=""
  [ "$known" -eq 0 ] || k=" ($known known)"
  printf '\n%s: %d scripts: %d passed, %d failed%s; without comparing PSH: %d passed, %d failed\n' \
    "$name" "$n" "$pass" "$fail" "$k" "$nopsh" $((n - nopsh))
  total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail))
  total_known=$((total_known + known))
}

ROOT=$1/gtests/net/tcp/
suite "google/packetdrill gtests/net/tcp (loss recovery)" "${google[@]}"
if [ ${#kernel[@]} -gt 0 ]; then
  ROOT=$KD/
  suite "Linux tools/testing/selftests/net/packetdrill (loss recovery)" "${kernel[@]}"
fi
if [ "$total_known" -eq 0 ]; then
  printf '\n%d passed, %d failed\n' "$total_pass" "$total_fail"
else
  printf '\n%d passed, %d failed (%d known, %d new)\n' "$total_pass" "$total_fail" \
    "$total_known" $((total_fail - total_known))
fi
[ "$total_fail" -eq "$total_known" ]
