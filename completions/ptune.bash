# bash completion for ptune
#
# The commands, each command's flags and formats, and the rule ids are asked from ptune itself
# (`ptune __complete ...`, answered from the same command table --help shows), so the completion
# never drifts from the binary it completes.
_ptune_ask() {
    "${_ptune_bin:-ptune}" __complete "$@" 2>/dev/null
}

_ptune() {
    local cur prev words cword
    _init_completion 2>/dev/null || {
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
    }
    local _ptune_bin=${COMP_WORDS[0]}
    # The subcommand: the first word after the global options.
    local i command=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            --color) ((i++)) ;;
            -*) ;;
            *) command=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [ -z "$command" ]; then
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--help --version --color -q --quiet -v --verbose" -- "$cur"))
        elif [ "$prev" = --color ]; then
            COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_ptune_ask commands)" -- "$cur"))
        fi
        return
    fi
    case "$prev" in
        --format)
            COMPREPLY=($(compgen -W "$(_ptune_ask formats "$command")" -- "$cur"))
            return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --backend) COMPREPLY=($(compgen -W "a2a3 a5" -- "$cur")); return ;;
        --metric) COMPREPLY=($(compgen -W "mean median min" -- "$cur")); return ;;
        --align) COMPREPLY=($(compgen -W "start absolute" -- "$cur")); return ;;
    esac
    if [ "$command" = help ]; then
        COMPREPLY=($(compgen -W "$(_ptune_ask commands)" -- "$cur"))
        return
    fi
    if [ "$command" = rules ]; then
        local action="" j
        for ((j = i + 1; j < COMP_CWORD; j++)); do
            case "${COMP_WORDS[j]}" in -*) ;; *) action=${COMP_WORDS[j]}; break ;; esac
        done
        if [[ "$cur" != -* ]]; then
            if [ -z "$action" ]; then
                COMPREPLY=($(compgen -W "list explain" -- "$cur"))
            elif [ "$action" = explain ]; then
                COMPREPLY=($(compgen -W "$(_ptune_ask rules)" -- "$cur"))
            fi
            return
        fi
    fi
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$(_ptune_ask options "$command")" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _ptune ptune
