# Shared by tests/e2e/special_outputs_and_sides.sh and found_special_files.sh (sourced with the
# binary as its argument; tests/e2e/lib/ is not globbed as tests): the binary, the test data, a
# scratch directory that is also the working directory, and the checks.
# shellcheck shell=bash
source "$(dirname "${BASH_SOURCE[0]}")/common.sh" "$1"
cd "$tmp" || exit 1

# expect CODE DESCRIPTION COMMAND...: the exit code within 20 s (124 = it hung).
expect() {
    local want=$1 what=$2
    shift 2
    timeout 20 "$@" >out 2>err </dev/null
    local code=$?
    [ "$code" = "$want" ] || bad "$what: exit $code, expected $want: $(head -c 400 err)"
}
