import { spawn } from "node:child_process";
import { OutputTail } from "./output-tail.js";

export interface ExecOptions {
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Written to standard input, then closed. */
  input?: string;
  timeoutMs: number;
  /** Aborting kills the whole process group, like the timeout. */
  signal?: AbortSignal;
  /** Bytes of combined output kept (the tail); the rest is counted, not stored. */
  tailBytes?: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  onOutput?: (chunk: string) => void;
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
  totalBytes: number;
  spawnError?: string;
}

const DEFAULT_TAIL = 4 * 1024 * 1024;
/** After the shell exits, how long a descendant that kept the pipes open may delay us before it is cut off. */
const DRAIN_AFTER_EXIT_MS = 1500;

/**
 * Runs `command` through /bin/sh -c in its own process group. On timeout or abort the whole group gets
 * SIGTERM, then SIGKILL; when the shell exits, whatever it left running in the group is killed too, so
 * no agent or test process outlives its session. Completes on the shell's exit, never waiting on a
 * background process that holds the pipes open.
 */
export function execCommand(options: ExecOptions): Promise<ExecResult> {
  const started = performance.now();
  const tail = new OutputTail(options.tailBytes ?? DEFAULT_TAIL);
  const errTail = new OutputTail(64 * 1024);
  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    let finished = false;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn("/bin/sh", ["-c", options.command], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const pid = child.pid;

    const killGroup = (signal: NodeJS.Signals) => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const terminate = () => {
      killGroup("SIGTERM");
      killTimer ??= setTimeout(() => killGroup("SIGKILL"), options.killGraceMs ?? 2000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    const onData = (chunk: Buffer, isErr: boolean) => {
      const text = chunk.toString("utf8");
      tail.push(text);
      if (isErr) errTail.push(text);
      options.onOutput?.(text);
    };
    child.stdout.on("data", (c: Buffer) => onData(c, false));
    child.stderr.on("data", (c: Buffer) => onData(c, true));
    child.stdin.on("error", () => {
      // The command did not read its input (EPIPE); that is its business.
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", onAbort);
      killGroup("SIGKILL");
      const done = () => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({
          command: options.command,
          exitCode,
          signal,
          timedOut,
          aborted,
          durationMs: Math.round(performance.now() - started),
          output: tail.text(),
          stderrTail: errTail.text(),
          totalBytes: tail.totalBytes,
          ...(spawnError ? { spawnError } : {}),
        });
      };
      if (child.stdout.readableEnded && child.stderr.readableEnded) return done();
      const cutoff = setTimeout(done, DRAIN_AFTER_EXIT_MS);
      child.once("close", () => {
        clearTimeout(cutoff);
        done();
      });
    };
    child.once("error", (error) => finish(null, null, error.message));
    child.once("exit", (code, signal) => finish(code, signal));
  });
}
