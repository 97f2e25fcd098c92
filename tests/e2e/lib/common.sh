# The preamble of an e2e script (sourced with the binary as its argument; tests/e2e/lib/ is not
# globbed as tests): the binary as an absolute path, the tests/ folder, a scratch folder removed
# on exit, and `bad MESSAGE` to fail the script at its end (`exit $fail`).
# shellcheck shell=bash
set -u
ptune=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
