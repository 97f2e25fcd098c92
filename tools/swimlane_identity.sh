#!/usr/bin/env bash
# Byte identity of two `ptune` binaries on swimlane-merge (docs/PERFORMANCE.md, "swimlane-merge"):
# the check every speed or memory change of the converter needs besides tools/swimlane_ab.sh.
#
#   tools/swimlane_identity.sh OLD_PTUNE NEW_PTUNE INPUT...
#
# Each INPUT (a records file, a capture directory or an L3 tree) is converted by both binaries,
# each in its own scratch directory under the same output name, to a JSON trace, a .json.gz
# trace, a protobuf trace and a JSON trace with --overhead. For every run the output file (the
# .json.gz inflated), stdout, stderr and the exit code must be the same (`cmp`). Prints one
# line per input and variant; exit 1 on any difference.
set -uo pipefail
old=${1:?usage: swimlane_identity.sh OLD_PTUNE NEW_PTUNE INPUT...}
new=${2:?usage: swimlane_identity.sh OLD_PTUNE NEW_PTUNE INPUT...}
shift 2
old=$(realpath "$old")
new=$(realpath "$new")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for input in "$@"; do
    if ! input=$(realpath -e "$input"); then
        echo "DIFFERENT: no such input $input"
        failed=1
        continue
    fi
    for variant in json gz proto overhead; do
        case $variant in
            json) out=trace.json extra=() ;;
            gz) out=trace.json.gz extra=() ;;
            proto) out=trace.pftrace extra=(--format proto) ;;
            overhead) out=trace.json extra=(--overhead) ;;
        esac
        for side in old new; do
            rm -rf "${work:?}/$side"
            mkdir -p "$work/$side"
            exe=$old
            [ $side = new ] && exe=$new
            (cd "$work/$side" && "$exe" swimlane-merge "$input" -o "$out" "${extra[@]}" \
                >stdout.txt 2>stderr.txt; echo $? >rc.txt)
        done
        same=1
        for f in rc.txt stdout.txt stderr.txt; do
            cmp -s "$work/old/$f" "$work/new/$f" || { same=0; echo "  $f differs"; }
        done
        if [ $variant = gz ] && [ -e "$work/old/$out" ] && [ -e "$work/new/$out" ]; then
            # The trace is what must not change; where the renderer cuts the compressor's
            # blocks may (a change of buffering moves a cut by a few bytes), so a different
            # .json.gz that inflates alike is only noted.
            if ! cmp -s <(gzip -dc "$work/old/$out") <(gzip -dc "$work/new/$out"); then
                same=0
                echo "  $out inflates differently"
            elif ! cmp -s "$work/old/$out" "$work/new/$out"; then
                echo "  note: $out inflates alike, its blocks are cut elsewhere"
            fi
        elif [ -e "$work/old/$out" ] || [ -e "$work/new/$out" ]; then
            cmp -s "$work/old/$out" "$work/new/$out" || { same=0; echo "  $out differs"; }
        fi
        if [ $same = 1 ]; then
            echo "same: $variant exit $(cat "$work/old/rc.txt") $input"
        else
            echo "DIFFERENT: $variant $input"
            failed=1
        fi
    done
done
exit $failed
