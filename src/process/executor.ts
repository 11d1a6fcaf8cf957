import { statSync } from "node:fs";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { setTimeout as delay } from "node:timers/promises";
import type { Options, Result, ResultPromise } from "execa";
import { createRedactor } from "../util/redact.js";
import { secretValues } from "../util/secrets.js";
import { noteCommand } from "./activity.js";
import type { ExecOptions, ExecResult } from "./exec-types.js";
import { reapWithGantry, startReaper } from "./group-reaper.js";
import { OutputTail } from "./output-tail.js";
import { type ProcessGroup, processGroup } from "./process-group.js";
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

/** execa, loaded at the first command: a CLI command that runs none does not pay for it. */
let execaModule: Promise<typeof import("execa")> | undefined;
const loadExeca = () => (execaModule ??= import("execa"));

/**
 * Runs `command` through /bin/sh -c in its own process group, on execa. execa decides when to stop it
 * (`timeout`, `cancelSignal`) and when to force it (`forceKillAfterDelay`); gantry makes every stop reach
 * the whole group, and, when the shell exits, kills what it left in the group after what remains of its
 * grace period, so no agent or test process outlives its command. Completes on the shell's exit: a process
 * that left the group (setsid) and holds the pipes delays it by DRAIN_AFTER_EXIT_MS at most.
 * With GANTRY_DEBUG set, each command and its end are traced on stderr (execa's `verbose`).
 */
export async function execCommand(options: ExecOptions): Promise<ExecResult> {
  checkOptions(options);
  const { execa } = await loadExeca();
  startReaper();
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const wrapped = (options.wrapper?.length ?? 0) > 0;
  const shell = ["/bin/sh", "-c", options.command];
  const [bin, ...args] = wrapped ? [...(options.wrapper as readonly string[]), ...shell] : shell;
  // Under a sandbox that confines a command to one tree (wrapper-scope.ts), it counts for that tree's judge alone.
  const ended = noteCommand(options.readsOnly !== true, scopeOf(options.wrapper));
  try {
    const child = execa(bin as string, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      extendEnv: false,
      detached: true,
      // Without input, /dev/null: a reader sees the end at once, as from a closed pipe, and no pipe is made.
      ...(options.input === undefined ? { stdin: "ignore" as const } : { input: options.input }),
      buffer: false,
      reject: false,
      timeout: Math.min(options.timeoutMs, MAX_TIMER_MS),
      ...(options.signal ? { cancelSignal: options.signal } : {}),
      // bwrap dies of SIGTERM and its sandbox with it at once: execa's signal to it does nothing (SIGCONT), the
      // command inside gets SIGTERM from stopWithGroup and its grace period, and the forced kill ends bwrap.
      killSignal: wrapped ? "SIGCONT" : "SIGTERM",
      forceKillAfterDelay: graceMs,
      verbose: process.env.GANTRY_DEBUG ? debugTrace() : "none",
    } satisfies Options);
    const group = processGroup(child.pid);
    const unlist = reapWithGantry(child.pid);
    const stopped = stopWithGroup(child, group, wrapped);
    const output = collectOutput(child, options);
    const result = await settle(child, group, () => stopped.at, graceMs);
    unlist();
    output.flush();
    return {
      command: options.command,
      exitCode: result.exitCode ?? null,
      signal: (result.signal as NodeJS.Signals | undefined) ?? null,
      timedOut: result.timedOut,
      aborted: result.isCanceled,
      forcefullyTerminated: result.isForcefullyTerminated,
      durationMs: Math.round(result.durationMs),
      output: output.tail.text(),
      stderrTail: output.errTail.text(),
      totalBytes: output.tail.totalBytes,
      ...(child.pid === undefined ? { spawnError: describeSpawnError(result, options.cwd) } : {}),
    };
  } finally {
    ended();
  }
}

/**
 * execa stops the child through its `kill` (its timeout and cancelSignal call it, and count the forced
 * kill from there): the whole group gets SIGTERM with it (under bwrap, its members). Returns when that happened.
 */
function stopWithGroup(child: ResultPromise, group: ProcessGroup, wrapped: boolean): { at?: number } {
  const stopped: { at?: number } = {};
  const execaKill = child.kill;
  child.kill = ((...args: Parameters<typeof execaKill>) => {
    stopped.at ??= performance.now();
    // The whole group at once: a shell signalled after its children could see them die and exit 0 first.
    // Under bwrap the leader must live through its members' grace period: they are signalled one by one.
    if (wrapped) group.signalMembers("SIGTERM");
    else group.signal("SIGTERM");
    return execaKill(...args);
  }) as typeof execaKill;
  return stopped;
}

/**
 * Waits for the shell's exit, lets the members still cleaning up use what is left of their grace period,
 * kills the rest of the group, then waits for the pipes at most DRAIN_AFTER_EXIT_MS.
 */
async function settle(
  child: ResultPromise,
  group: ProcessGroup,
  stoppedAt: () => number | undefined,
  graceMs: number,
): Promise<Result> {
  // A child that never started has no exit: its result comes alone.
  await Promise.race([new Promise((exited) => child.once("exit", exited)), child]);
  const since = stoppedAt();
  if (since !== undefined) {
    while (group.alive() && performance.now() < since + graceMs) await delay(GROUP_POLL_MS);
  }
  group.signal("SIGKILL");
  const drained = await within(child, { ms: DRAIN_AFTER_EXIT_MS });
  if (drained.kind === "value") return drained.value;
  child.stdout?.destroy();
  child.stderr?.destroy();
  return child;
}

/**
 * GANTRY_DEBUG's trace: each command line and how it ended, as execa's `short` prints them, with the values
 * of the environment's credentials redacted (as run.log redacts them); the command's output is not traced.
 */
function debugTrace(): (line: string, entry: { type: string }) => string | undefined {
  const redactor = createRedactor(secretValues(process.env, []));
  return (line, { type }) => (type === "output" || type === "ipc" ? undefined : redactor.text(line));
}

/** The output's tail (stdout and stderr interleaved as they arrived) and stderr's own, fed to `onOutput` too. */
function collectOutput(child: ResultPromise, options: ExecOptions) {
  const tail = new OutputTail(options.tailBytes ?? DEFAULT_TAIL);
  const errTail = new OutputTail(STDERR_TAIL);
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
  const flush = () => {
    for (const end of flushers) end();
  };
  return { tail, errTail, flush };
}

/** Decodes a stream as UTF-8 without cutting characters that straddle chunks; returns the final flush. */
function listen(
  stream: Readable | null,
  isErr: boolean,
  take: (text: string, bytes: number, isErr: boolean) => void,
): () => void {
  const decoder = new StringDecoder("utf8");
  stream?.on("data", (chunk: Buffer) => take(decoder.write(chunk), chunk.length, isErr));
  return () => take(decoder.end(), 0, isErr);
}

/** Node reports a missing working directory as "spawn /bin/sh ENOENT"; say what is actually missing. */
function describeSpawnError(result: Result, cwd: string): string {
  if (result.code === "ENOENT") {
    try {
      if (!statSync(cwd).isDirectory()) return `working directory is not a directory: ${cwd}`;
    } catch {
      return `working directory does not exist: ${cwd}`;
    }
  }
  return result.originalMessage ?? result.shortMessage ?? result.message ?? "it could not be started";
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
