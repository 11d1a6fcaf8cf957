/** What execCommand (executor.ts) is asked and answers. */
export interface ExecOptions {
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Written to standard input, then closed. Without it standard input is /dev/null (a reader sees its end at once). */
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
  /** Between SIGTERM and SIGKILL; 2 s when unset. */
  killGraceMs?: number;
  /**
   * A command line the shell is started under (bwrap's, up to `--`): it leads the process group then,
   * and `/bin/sh -c command` runs inside it.
   */
  wrapper?: readonly string[];
  /**
   * The command is not meant to change files (tests, lint, typecheck): a judge that asks for it may keep the
   * tree it judged before across it (activity.ts, git/judged-trees.ts). Unset: it may change them.
   */
  readsOnly?: boolean;
  /** Sees every piece of output as it arrives. A listener that throws is not fatal; it is not called again. */
  onOutput?: (chunk: string) => void;
}

export interface ExecResult {
  command: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** It was still running when its grace period after SIGTERM ended, and was killed with SIGKILL. */
  forcefullyTerminated: boolean;
  durationMs: number;
  /** The last `tailBytes` of stdout and stderr, interleaved as they arrived. */
  output: string;
  stderrTail: string;
  /** Bytes of output the command wrote, all of it, kept or not. */
  totalBytes: number;
  spawnError?: string;
}
