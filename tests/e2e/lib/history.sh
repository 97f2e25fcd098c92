# Shared by the tests/e2e/history_*.sh scripts (sourced; tests/e2e/lib/ is not globbed as tests).
# shellcheck shell=bash

# history_synth, built with the tools.
history_synth() {
  local synth=$build/tools/history_synth
  [ -x "$synth" ] || { echo "history_synth is not built ($synth)"; exit 1; }
  "$synth" "$@"
}

# The issue's 60-run history: prefill_fwd steps +7 % at run 40 (1 % noise), decode_fwd drifts
# +-8 % without a step. make_sixty DIR writes DIR/runs/run-000NN.log and the two current runs
# of the gate check (DIR/stable10.log: prefill +10 %, DIR/noisy6.log: decode +6 %).
sixty_args=(--runs 60 --rounds 10 --no-raw --case prefill_fwd --case decode_fwd
            --noise-of prefill_fwd=1 --noise-of decode_fwd=8 --step prefill_fwd=40:7)
make_sixty() {
  history_synth "${sixty_args[@]}" --out "$1/runs"
  history_synth "${sixty_args[@]}" --current "$1/stable10.log" --extra prefill_fwd=10
  history_synth "${sixty_args[@]}" --current "$1/noisy6.log" --extra decode_fwd=6
}

# add_sixty DB DIR: records the 60 runs, one `history add` each, an hour apart.
add_sixty() {
  local i
  for i in $(seq 1 60); do
    "$ptune" -q history --db "$1" add "$(printf '%s/runs/run-%05d.log' "$2" "$i")" \
      --commit "$(printf 'c%03d' "$i")" --branch main --toolchain cann-8.1 \
      --time "@$((1767225600 + i * 3600))" >/dev/null
  done
}

# check_sixty_changes FILE: `history changes --format json` found prefill_fwd at run 40 +- 1
# and nothing for decode_fwd.
check_sixty_changes() {
  python3 - "$1" <<'PY'
import json, sys
changes = json.load(open(sys.argv[1]))["changes"]
assert len(changes) == 1, changes
c = changes[0]
assert c["case"] == "prefill_fwd", c
assert 39 <= c["run"] <= 41, c
assert 5.5 <= c["change_pct"] <= 8.5, c
assert c["confidence"] >= 0.99, c
print(f"change point: {c['case']} at run {c['run']} ({c['commit_before']}..{c['commit']}), "
      f"{c['change_pct']:+.1f} %, confidence {c['confidence']:.3f}")
PY
}

# expect CODE CMD...: runs CMD, fails the test unless it exits with CODE.
expect() {
  local want=$1 code=0
  shift
  "$@" >"$tmp/out" 2>"$tmp/err" || code=$?
  if [ "$code" != "$want" ]; then
    echo "FAIL: exit $code (want $want): $*"
    cat "$tmp/out" "$tmp/err"
    exit 1
  fi
}

# two_writers DB INPUT COUNT: two `history add` processes at once, COUNT runs each (commits
# p1-N and p2-N, so every run is distinct).
two_writers() {
  writer() {
    local i
    for i in $(seq 1 "$4"); do
      "$ptune" -q history --db "$2" add "$3" --commit "$1-$i" >/dev/null
    done
  }
  writer p1 "$@" &
  local first=$!
  writer p2 "$@" &
  local second=$!
  wait "$first"
  wait "$second"
}
