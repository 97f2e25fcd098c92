#!/usr/bin/env bash
# Hostile situations beyond input bytes (tests/malformed/scenarios.sh): outputs over inputs,
# special files, NaN options, signals, ENOSPC, large inputs under an address-space limit.
# Usage: harden_scenarios.sh PTUNE BUILD_DIR
exec bash "$(dirname "$0")/../malformed/scenarios.sh" "$@"
