# bash completion for pagesim, installed as share/bash-completion/completions/pagesim. The
# candidates come from the binary being completed (`pagesim complete`, tools/cli/complete.h),
# which draws them from its own declarations, so that they follow the CLI.
_pagesim() {
  local bin=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} line=${COMP_LINE:0:COMP_POINT} words=() c prefix
  # The words as typed: bash splits "--set kernel.preset=v5" at '=' (COMP_WORDBREAKS).
  read -ra words <<<"$line"
  [[ $line =~ [[:space:]]$ ]] && words+=("")
  local typed=${words[${#words[@]}-1]}
  # What bash replaces is only its own current word: the candidates lose what precedes it.
  prefix=${typed:0:${#typed}-${#cur}}
  [[ $typed != *"$cur" ]] && prefix=""
  command -v "$bin" >/dev/null 2>&1 || bin=pagesim
  COMPREPLY=()
  while IFS= read -r c; do
    if [[ $c == @files ]]; then
      compopt -o filenames 2>/dev/null
      local f
      while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -f -- "$cur")
    else
      COMPREPLY+=("${c#"$prefix"}")
    fi
  done < <("$bin" complete -- "${words[@]:1}" 2>/dev/null)
  [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
  return 0
}
complete -F _pagesim pagesim
