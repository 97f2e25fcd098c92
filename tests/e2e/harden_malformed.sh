#!/usr/bin/env bash
# The malformed-input corpus (tests/malformed/): every case ends with its expected outcome,
# never a signal, a hang or a sanitizer report. Usage: harden_malformed.sh PTUNE BUILD_DIR
exec bash "$(dirname "$0")/../malformed/run.sh" "$@"
