import {
  closeSync,
  fstatSync,
  openSync,
  readSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { CommandHelperPool } from "./command-helper.js";
import { dropFileHead } from "./drop-file-head.js";
import type { ExecOptions, ExecResult } from "./exec-types.js";
import { OutputTail } from "./output-tail.js";
import { processGroup } from "./process-group.js";
import { MAX_TIMER_MS } from "./timeout.js";

const STDERR_TAIL = 64 * 1024;
/** Read past the tail's start so that it can begin at a line (OutputTail's line search). */
const LINE_SEARCH = 4096;
const GROUP_POLL_MS = 25;
/** A helper that has not said the command ended this long after its kill is given up. */
const NO_REPLY_MS = 10_000;
/**
 * Past this many unread bytes the output file's tail is taken into memory and the bytes read are dropped from
 * the disk (the child appends to it): a command that prints without end fills no disk (dropFileHead).
 */
const maxOutputFile = () => Number(process.env.GANTRY_OUTPUT_FILE_MAX_BYTES) || 64 * 1024 * 1024;
const SIZE_CHECK_MS = 500;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
let sequence = 0;

/** What a child's environment changes from the helper's, or undefined where bash cannot say it (odd names). */
export function environmentChange(
  base: Readonly<NodeJS.ProcessEnv>,
  wanted: NodeJS.ProcessEnv,
): { set: Record<string, string>; unset: string[] } | undefined {
  const set: Record<string, string> = {};
  const unset: string[] = [];
  for (const [name, value] of Object.entries(wanted)) {
    if (value === undefined || base[name] === value) continue;
    if (!NAME.test(name) || value.includes("\0")) return undefined;
    set[name] = value;
  }
  for (const name of Object.keys(base)) {
    if (wanted[name] !== undefined) continue;
    if (!NAME.test(name)) return undefined;
    unset.push(name);
  }
  // bash raises SHLVL for what it starts; node would have passed it as it is.
  if (wanted.SHLVL !== undefined) set.SHLVL = wanted.SHLVL;
  return { set, unset };
}

/**
 * execCommand's work (executor.ts) with the command started by a command helper instead of forked from
 * node: the same process group, timeout, abort, grace period and group kill. Output is the file's tail,
 * stdout and stderr interleaved as written; `stderrTail` is the same combined output's last 64 KB (the
 * helper does not keep the streams apart). Returns undefined where the helper cannot run it as asked.
 */
export function execViaHelper(
  pool: CommandHelperPool,
  options: ExecOptions,
  graceMs: number,
  tailBytes: number,
): Promise<ExecResult> | undefined {
  const change = environmentChange(pool.env, options.env ?? process.env);
  if (!change) return undefined;
  const started = performance.now();
  sequence += 1;
  const outputFile = join(pool.directory, `${sequence}.out`);
  const inputFile = options.input !== undefined ? join(pool.directory, `${sequence}.in`) : "/dev/null";
  if (options.input !== undefined) writeFileSync(inputFile, options.input, { mode: 0o600 });
  const shell = ["/bin/sh", "-c", options.command];
  const argv = options.wrapper?.length ? [...options.wrapper, ...shell] : shell;
  const start = pool.run({ argv, cwd: options.cwd, inputFile, outputFile, ...change });

  return new Promise((resolve) => {
    let timedOut = false;
    let aborted = false;
    let termSentAt: number | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let noReply: NodeJS.Timeout | undefined;
    let pid: number | undefined;
    let wantTerm = false;

    const sendTerm = () => {
      if (pid === undefined || termSentAt !== undefined) return;
      termSentAt = performance.now();
      const group = processGroup(pid);
      // bwrap dies of SIGTERM and its sandbox with it at once: the command inside gets the grace period instead.
      if (options.wrapper?.length) group.signalMembers("SIGTERM");
      else group.signal("SIGTERM");
      killTimer = setTimeout(() => group.signal("SIGKILL"), graceMs);
      noReply = setTimeout(
        () => pid !== undefined && processGroup(pid).signal("SIGKILL"),
        graceMs + NO_REPLY_MS,
      );
    };
    const terminate = () => {
      wantTerm = true;
      sendTerm();
    };
    void start.started.then((p) => {
      pid = p;
      if (wantTerm) sendTerm();
    });
    const timer = setTimeout(
      () => {
        timedOut = true;
        terminate();
      },
      Math.min(options.timeoutMs, MAX_TIMER_MS),
    );
    const tail = new OutputTail(tailBytes);
    const errTail = new OutputTail(STDERR_TAIL);
    const take = (text: { text: string; size: number }) => {
      tail.push(text.text, text.size);
      errTail.push(text.text.slice(-STDERR_TAIL));
    };
    // The file's bytes before this offset are in the tail already (and their blocks freed).
    let taken = 0;
    const sizeWatch = setInterval(() => {
      if (fileSize(outputFile) - taken <= maxOutputFile()) return;
      const read = readTail(outputFile, tailBytes + LINE_SEARCH, taken);
      take(read);
      if (dropFileHead(outputFile, taken + read.size)) taken += read.size;
      else {
        truncateSync(outputFile, 0);
        taken = 0;
      }
    }, SIZE_CHECK_MS);
    sizeWatch.unref();
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    void start.ended.then(async (end) => {
      clearTimeout(timer);
      clearInterval(sizeWatch);
      options.signal?.removeEventListener("abort", onAbort);
      const group = processGroup(pid);
      if (termSentAt !== undefined) {
        // Asked to stop: members still cleaning up get what is left of their grace period, not a SIGKILL now.
        const deadline = termSentAt + graceMs;
        while (group.alive() && performance.now() < deadline) await delay(GROUP_POLL_MS);
      }
      clearTimeout(killTimer);
      clearTimeout(noReply);
      // Whatever the command left running in its group goes with it.
      group.signal("SIGKILL");
      take(readTail(outputFile, tailBytes + LINE_SEARCH, taken));
      for (const file of [outputFile, inputFile]) if (file !== "/dev/null") removeQuietly(file);
      const code = "code" in end ? end.code : undefined;
      const stopped = timedOut || aborted;
      const signal = stopped && code !== undefined && code > 128 ? signalName(code - 128) : null;
      const spawnError = "lost" in end ? end.lost : code === 126 ? missingDirectory(options.cwd) : undefined;
      resolve({
        command: options.command,
        exitCode: signal || spawnError !== undefined ? null : (code ?? null),
        signal,
        timedOut,
        aborted,
        durationMs: Math.round(performance.now() - started),
        output: tail.text(),
        stderrTail: errTail.text(),
        totalBytes: tail.totalBytes,
        ...(spawnError !== undefined ? { spawnError } : {}),
      });
    });
  });
}

/**
 * The last `limit` bytes of the file after offset `from` as text (starting at a whole character) and how many
 * bytes the file holds past `from`.
 */
function readTail(path: string, limit: number, from: number): { text: string; size: number } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return { text: "", size: 0 };
  }
  try {
    const size = Math.max(0, fstatSync(fd).size - from);
    const length = Math.min(size, limit);
    const buffer = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, from + size - length + read);
      if (n === 0) break;
      read += n;
    }
    let start = 0;
    // UTF-8 continuation bytes at the cut belong to a character that began before it.
    if (length < size) while (start < read && ((buffer[start] ?? 0) & 0xc0) === 0x80) start += 1;
    return { text: buffer.toString("utf8", start, read), size };
  } finally {
    closeSync(fd);
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

function signalName(number: number): NodeJS.Signals | null {
  const found = Object.entries(constants.signals).find(([, n]) => n === number);
  return found ? (found[0] as NodeJS.Signals) : null;
}

/** The helper's subshell exits 126 when it cannot enter the directory (or open the files): say which. */
function missingDirectory(cwd: string): string | undefined {
  try {
    return statSync(cwd).isDirectory() ? undefined : `working directory is not a directory: ${cwd}`;
  } catch {
    return `working directory does not exist: ${cwd}`;
  }
}
