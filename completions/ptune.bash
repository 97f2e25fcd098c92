# bash completion for ptune
_ptune() {
    local cur prev words cword
    _init_completion 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; }
    local commands="bench-summary bench bench-gate swimlane-merge swimlane-analyze mem-report hints-lint pmu-analyze advise history rules help"
    local common="--format -o --output --color -q --quiet -v --verbose --rules --help"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    case "$prev" in
        --format)
            COMPREPLY=($(compgen -W "text json csv markdown run gcc sarif github gab-json perfetto proto html svg" -- "$cur"))
            return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --backend) COMPREPLY=($(compgen -W "a2a3 a5" -- "$cur")); return ;;
        --metric) COMPREPLY=($(compgen -W "mean median min" -- "$cur")); return ;;
    esac
    if [ "${COMP_WORDS[1]}" = rules ] && [ "$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=($(compgen -W "list explain" -- "$cur"))
        return
    fi
    if [ "${COMP_WORDS[1]}" = history ] && [ "$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=($(compgen -W "add list show changes export --db" -- "$cur"))
        return
    fi
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$common $("${COMP_WORDS[0]}" "${COMP_WORDS[1]}" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _ptune ptune
