import { findOnPath, isExecutableFile } from "./find-executable.js";

/** The shell script a spawn helper runs (its protocol is described in spawn-helper.ts). */
export function helperScript(jobControl: boolean): string {
  // With job control (bash `set -m`) every background job leads its own process group and a script runs in
  // the job itself; without it (dash), `setsid` gives the child its group, one exec more a request. The
  // shell's own stderr goes to /dev/null (bash's job notices); children get the reply channel (fd 4).
  const start = jobControl ? 'exec "$@"' : 'exec setsid "$@"';
  return [
    ...(jobControl ? ["set -m"] : []),
    "NL='",
    "'",
    "exec 4>&2 2>/dev/null",
    // The watcher: fd 3 ends (EOF) only when gantry is gone, SIGKILL included; then everything in the
    // helper's session goes, the child it is waiting for too (with job control it shares the session).
    // Without job control each child leads a session of its own (setsid): those of the helper's children go first.
    "{ while IFS= read -r _; do :; done",
    '  if command -v pkill >/dev/null; then for c in $(pgrep -P $$); do pkill -KILL -s "$c"; done; pkill -KILL -s 0; fi',
    "  kill -KILL $$; } <&3 >/dev/null 4>&- &",
    "watcher=$!",
    "while IFS= read -r req; do",
    "  eval \"set -- $req\" || { printf 'x 125\\n' >&3; continue; }",
    "  mark=$1; shift",
    '  ( cd -- "$1" || exit 126; n=$2; shift 2',
    '    while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n - 1)); done',
    "    exec </dev/null 2>&4 3>&- 4>&-",
    ...(jobControl
      ? ['    if [ "$1" = /bin/sh ] && [ "$2" = -c ]; then s=$3; shift 4; eval "$s"; exit; fi']
      : []),
    `    ${start} ) &`,
    "  pid=$!",
    "  printf 'p %s\\n' \"$pid\" >&3",
    '  wait "$pid"; code=$?',
    "  printf '%s\\n' \"$mark\"; printf '%s\\n' \"$mark\" >&4",
    "  printf 'e %s\\n' \"$code\" >&3",
    "done",
    'kill "$watcher"; wait "$watcher"',
  ].join("\n");
}

export interface HelperShell {
  path: string;
  args: string[];
  /** `set -m` works: background jobs get their own process group without `setsid`. */
  jobControl: boolean;
}

/**
 * The shell the helper runs in: bash with job control where there is one (a request is one fork and
 * one exec), else /bin/sh with setsid (util-linux); undefined where neither is (the caller forks from node).
 */
export function helperShell(): HelperShell | undefined {
  if (process.platform === "win32") return undefined;
  if (isExecutableFile("/bin/bash"))
    return { path: "/bin/bash", args: ["--noprofile", "--norc"], jobControl: true };
  return findOnPath("setsid") ? { path: "/bin/sh", args: [], jobControl: false } : undefined;
}
