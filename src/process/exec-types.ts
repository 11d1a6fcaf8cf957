/** What execCommand (executor.ts) is asked and answers. */
export interface ExecOptions {
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Written to standard input, then closed. Without it standard input is closed at once. */
  input?: string;
  /** A positive number of milliseconds; past about 24.8 days it is capped there. */
  timeoutMs: number;
  /** Aborting kills the whole process group, like the timeout. */
  signal?: AbortSignal;
  /**
   * How much of the combined output is kept (the tail), in characters (bytes for ASCII output); the rest
   * is counted, not stored.
   */
  tailBytes?: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /**
   * A command line the shell is started under (bwrap's, up to `--`): it leads the process group then,
   * and `/bin/sh -c command` runs inside it.
   */
  wrapper?: readonly string[];
  /**
   * The command is not meant to change files (tests, lint, typecheck): the judge afterwards checks that it
   * did not with a stat pass instead of building the tree again (activity.ts). Unset: it may change them.
   */
  readsOnly?: boolean;
  /** Sees every piece of output as it arrives. A listener that throws is not fatal; it is not called again. */
  onOutput?: (chunk: string) => void;
  /**
   * Started by a command helper (command-helper.ts) rather than forked from node, where one can run it
   * (not with `onOutput`, which needs the output as it arrives). Its output is then stdout and stderr
   * interleaved in one file, and `stderrTail` is that combined output's tail.
   */
  viaHelper?: boolean;
}

export interface ExecResult {
  command: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** The last `tailBytes` of stdout and stderr, interleaved as they arrived. */
  output: string;
  stderrTail: string;
  /** Bytes of output the command wrote, all of it, kept or not. */
  totalBytes: number;
  spawnError?: string;
}
