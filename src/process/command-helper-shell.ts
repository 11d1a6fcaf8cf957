/**
 * The bash script a command helper runs (command-helper.ts). One request a line on stdin, single-quoted words
 * (shell-word.ts's quoteWord) evaluated by `eval "set -- …"` only: the working directory, the input file,
 * the output file, the count and words of `NAME=value` exports, the count and names of unsets, the argument
 * vector. On fd 3: `p PID` once the child started (it leads its own process group: `set -m`), `e CODE` when
 * it ended, `x 125` for a request that could not be read. The child's stdin is the input file and its
 * stdout and stderr both go to the output file, a fresh one each request: nothing the child leaves behind
 * can write into a later command's output. The file is opened to append, so that gantry can empty it while
 * the child writes (exec-via-helper.ts bounds its size). The helper's own variables start with `__g` so that an exported
 * variable of the user's environment is not changed by the script.
 */
export function commandHelperScript(): string {
  return [
    "set -m",
    "NL='",
    "'",
    "exec 2>/dev/null",
    // The watcher: fd 3 ends only when gantry is gone, SIGKILL included; then
    // everything in the helper's session goes, the running child too (with job control it shares the session).
    "{ while IFS= read -r _; do :; done",
    "  if command -v pkill >/dev/null; then pkill -KILL -s 0; fi",
    "  kill -KILL $$; } <&3 >/dev/null &",
    "__gw=$!",
    "while IFS= read -r __greq; do",
    "  eval \"set -- $__greq\" || { printf 'x 125\\n' >&3; continue; }",
    '  ( exec <"$2" >>"$3" 2>&1 3>&- || exit 126',
    '    cd -- "$1" || exit 126',
    "    __gn=$4; shift 4",
    '    while [ "$__gn" -gt 0 ]; do export "$1"; shift; __gn=$((__gn - 1)); done',
    "    __gn=$1; shift",
    '    while [ "$__gn" -gt 0 ]; do unset -v "$1"; shift; __gn=$((__gn - 1)); done',
    '    exec "$@" ) &',
    "  __gp=$!",
    "  printf 'p %s\\n' \"$__gp\" >&3",
    '  wait "$__gp"; printf \'e %s\\n\' "$?" >&3',
    "done",
    'kill "$__gw"; wait "$__gw"',
  ].join("\n");
}
