import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { setTimeout as delay } from "node:timers/promises";
import { noteCommand } from "./activity.js";
import { type CommandHelperPool, createCommandHelperPool } from "./command-helper.js";
import type { ExecOptions, ExecResult } from "./exec-types.js";
import { execViaHelper } from "./exec-via-helper.js";
import { OutputTail } from "./output-tail.js";
import { processGroup } from "./process-group.js";
import { MAX_TIMER_MS, within } from "./timeout.js";
import { scopeOf } from "./wrapper-scope.js";

export type { ExecOptions, ExecResult };

const DEFAULT_TAIL = 4 * 1024 * 1024;
const STDERR_TAIL = 64 * 1024;
const DEFAULT_KILL_GRACE_MS = 2000;
/** After the shell exits, how long a process outside the group that kept the pipes open may delay us. */
const DRAIN_AFTER_EXIT_MS = 1500;
/** How often the group is looked at while its members use their grace period. */
const GROUP_POLL_MS = 25;

/**
 * Runs `command` through /bin/sh -c in its own process group. On timeout or abort the whole group gets
 * SIGTERM, then SIGKILL once the grace period is over, also when the shell itself died at once and only
 * its children are still cleaning up. When the shell exits on its own, whatever it left running in the
 * group is killed, so no agent or test process outlives its session. Completes on the shell's exit: a
 * process that left the group (setsid) and holds the pipes delays it by DRAIN_AFTER_EXIT_MS at most.
 */
export function execCommand(options: ExecOptions): Promise<ExecResult> {
  try {
    checkOptions(options);
  } catch (error) {
    return Promise.reject(error);
  }
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const helpers = options.viaHelper && !options.onOutput ? commandHelpers() : undefined;
  // Under a sandbox that confines a command to one tree (wrapper-scope.ts), it counts for that tree's judge alone.
  if (helpers) {
    const ended = noteCommand(options.readsOnly !== true, scopeOf(options.wrapper));
    const result = execViaHelper(helpers, options, graceMs, options.tailBytes ?? DEFAULT_TAIL);
    if (result) return result.finally(ended);
    ended();
  }
  const started = performance.now();
  const tail = new OutputTail(options.tailBytes ?? DEFAULT_TAIL);
  const errTail = new OutputTail(STDERR_TAIL);

  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    let exited = false;
    let termSentAt: number | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    const shell = ["/bin/sh", "-c", options.command];
    const [bin, ...args] = options.wrapper?.length ? [...options.wrapper, ...shell] : shell;
    const ended = noteCommand(options.readsOnly !== true, scopeOf(options.wrapper));
    const child = spawn(bin as string, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const group = processGroup(child.pid);
    const closed = new Promise<void>((done) => child.once("close", () => done()));

    const terminate = () => {
      if (termSentAt !== undefined) return;
      termSentAt = performance.now();
      // bwrap dies of SIGTERM and its sandbox with it at once: the command inside gets the grace period instead.
      if (options.wrapper?.length) group.signalMembers("SIGTERM");
      else group.signal("SIGTERM");
      killTimer = setTimeout(() => group.signal("SIGKILL"), graceMs);
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        terminate();
      },
      Math.min(options.timeoutMs, MAX_TIMER_MS),
    );
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    let listenerBroken = false;
    const take = (text: string, bytes: number, isErr: boolean) => {
      tail.push(text, bytes);
      if (isErr) errTail.push(text, bytes);
      if (!text || !options.onOutput || listenerBroken) return;
      try {
        options.onOutput(text);
      } catch {
        // A listener's bug must not take the process down or lose the command's result; it is not called again.
        listenerBroken = true;
      }
    };
    const flushers = [listen(child.stdout, false, take), listen(child.stderr, true, take)];

    child.stdin.on("error", () => {
      // The command did not read its input (EPIPE); that is its business.
    });
    child.stdin.end(options.input ?? "");

    const settle = async (exitCode: number | null, signal: NodeJS.Signals | null, spawnError?: string) => {
      if (exited) return;
      exited = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      if (termSentAt !== undefined) {
        // Asked to stop: members still cleaning up get what is left of their grace period, not a SIGKILL now.
        const deadline = termSentAt + graceMs;
        while (group.alive() && performance.now() < deadline) await delay(GROUP_POLL_MS);
      }
      clearTimeout(killTimer);
      group.signal("SIGKILL");
      if (spawnError === undefined) await within(closed, { ms: DRAIN_AFTER_EXIT_MS });
      child.stdout.destroy();
      child.stderr.destroy();
      for (const flush of flushers) flush();
      ended();
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
        ...(spawnError !== undefined ? { spawnError } : {}),
      });
    };
    child.once("error", (error) => void settle(null, null, describeSpawnError(error, options.cwd)));
    child.once("exit", (code, signal) => void settle(code, signal));
  });
}

let helperPool: CommandHelperPool | undefined | null;

/** The command helpers, started at first use; none with GANTRY_SPAWN_HELPER=0 (node forks every command then). */
function commandHelpers(): CommandHelperPool | undefined {
  if (helperPool === undefined)
    helperPool =
      process.env.GANTRY_SPAWN_HELPER !== "0" ? (createCommandHelperPool(process.env) ?? null) : null;
  return helperPool ?? undefined;
}

/** Decodes a stream as UTF-8 without cutting characters that straddle chunks; returns the final flush. */
function listen(
  stream: Readable,
  isErr: boolean,
  take: (text: string, bytes: number, isErr: boolean) => void,
): () => void {
  const decoder = new StringDecoder("utf8");
  stream.on("data", (chunk: Buffer) => take(decoder.write(chunk), chunk.length, isErr));
  return () => take(decoder.end(), 0, isErr);
}

/** Node reports a missing working directory as "spawn /bin/sh ENOENT"; say what is actually missing. */
function describeSpawnError(error: NodeJS.ErrnoException, cwd: string): string {
  if (error.code === "ENOENT") {
    try {
      if (!statSync(cwd).isDirectory()) return `working directory is not a directory: ${cwd}`;
    } catch {
      return `working directory does not exist: ${cwd}`;
    }
  }
  return error.message;
}

function checkOptions(options: ExecOptions): void {
  const positive = (name: string, value: unknown, allowZero = false) => {
    if (typeof value !== "number" || Number.isNaN(value) || value < 0 || (!allowZero && value === 0)) {
      const what = allowZero ? "a number >= 0" : "a positive number";
      throw new TypeError(`execCommand: ${name}: expected ${what}, got ${String(value)}`);
    }
  };
  if (typeof options.command !== "string" || options.command.trim() === "") {
    throw new TypeError(
      `execCommand: command: expected a non-empty string, got ${JSON.stringify(options.command)}`,
    );
  }
  positive("timeoutMs", options.timeoutMs);
  if (options.killGraceMs !== undefined) positive("killGraceMs", options.killGraceMs, true);
  if (options.tailBytes !== undefined) positive("tailBytes", options.tailBytes);
}
