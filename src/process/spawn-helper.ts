import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { endHelper, holdHelper, killHelper } from "./helper-child.js";
import { processGroup } from "./process-group.js";
import { type HelperShell, helperScript } from "./spawn-helper-shell.js";
import { MAX_TIMER_MS } from "./timeout.js";

/**
 * A long-lived shell (spawn-helper-shell.ts) that starts gantry's own short commands (git, mostly) for it. node forks a copy
 * of its whole address space (~80 MB) for every child; a small shell forks in well under a millisecond.
 *
 * Protocol, all through the helper's pipes (nothing on disk an agent could reach):
 * - stdin, one request a line: single-quoted words (a newline inside a word is `'"$NL"'`), evaluated by
 *   `eval "set -- …"` only (words, never commands): the working directory, the number of environment
 *   additions, those `NAME=value` words, the argument vector.
 * - fd 3, control: `p PID` once the child started (it leads its own session and group), `e CODE` when it ended.
 * - stdout / stderr: the child's own, each followed by the request's end mark (a random 128-bit token, so no
 *   output can end a reply early) on its own line.
 * A helper runs one request at a time; a pool starts more when all are busy. Each child has a timeout and is
 * killed with its whole group (processGroup). The helper exits when gantry does: its stdin ends (EOF), and
 * a child still writing gets EPIPE. The environment is built once, when a helper starts.
 */
export interface HelperRequest {
  argv: string[];
  cwd: string;
  /** Added to the helper's environment for this child only. */
  env?: Record<string, string>;
  timeoutMs: number;
}

export interface HelperResult {
  stdout: string;
  stderr: string;
  /** The exit code; 128 + N for a child that died of signal N. */
  code: number;
  timedOut: boolean;
}

/** The helper died while a request was running: the request's outcome is unknown. */
export class HelperLost extends Error {
  override name = "HelperLost";
}

/** One word the helper's `eval "set -- …"` turns back into exactly `word`. */
export function quoteWord(word: string): string {
  return `'${word.replaceAll("'", "'\\''").replaceAll("\n", `'"$NL"'`)}'`;
}

interface Pending {
  request: HelperRequest;
  resolve: (result: HelperResult) => void;
  reject: (error: Error) => void;
}

const KILL_GRACE_MS = 1000;

class Helper {
  readonly child: ChildProcess;
  busy = false;
  dead = false;
  private current?: {
    pending: Pending;
    mark: Buffer;
    out: Buffer[];
    err: Buffer[];
    /** The last bytes of each stream, as long as the mark: where the mark is looked for. */
    tails: { out: Buffer; err: Buffer };
    outDone: boolean;
    errDone: boolean;
    code?: number;
    pid?: number;
    timer?: NodeJS.Timeout;
    killTimer?: NodeJS.Timeout;
    /** A helper that has not replied this long after the timeout (stopped, wedged) is given up. */
    deadline?: NodeJS.Timeout;
    timedOut: boolean;
  };
  private control = "";

  constructor(
    shell: HelperShell,
    env: NodeJS.ProcessEnv,
    private readonly onIdle: (helper: Helper) => void,
  ) {
    this.child = spawn(shell.path, [...shell.args, "-c", helperScript(shell.jobControl), "gantry-helper"], {
      env,
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      // Its own session: a Ctrl-C meant for gantry does not cut a git command short, and the watcher can
      // end the helper's whole session.
      detached: true,
    });
    const [, out, err, ctl] = this.child.stdio as unknown as [Writable, Readable, Readable, Readable];
    out.on("data", (chunk: Buffer) => this.take(chunk, "out"));
    err.on("data", (chunk: Buffer) => this.take(chunk, "err"));
    ctl.on("data", (chunk: Buffer) => this.onControl(chunk.toString("latin1")));
    this.child.stdin?.on("error", () => this.lose("its input closed"));
    this.child.once("error", (error) => this.lose(error.message));
    this.child.once("exit", (code, signal) => this.lose(`it exited (${signal ?? code})`));
    this.hold(false);
  }

  run(pending: Pending): void {
    const { request } = pending;
    this.busy = true;
    this.hold(true);
    const mark = `gantry-end-${randomBytes(16).toString("hex")}`;
    const env = Object.entries(request.env ?? {}).map(([k, v]) => `${k}=${v}`);
    const words = [mark, request.cwd, String(env.length), ...env, ...request.argv];
    this.current = {
      pending,
      mark: Buffer.from(`${mark}\n`),
      out: [],
      err: [],
      tails: { out: Buffer.alloc(0), err: Buffer.alloc(0) },
      outDone: false,
      errDone: false,
      timedOut: false,
    };
    const current = this.current;
    current.timer = setTimeout(
      () => {
        current.timedOut = true;
        const group = processGroup(current.pid);
        group.signal("SIGTERM");
        current.killTimer = setTimeout(() => group.signal("SIGKILL"), KILL_GRACE_MS);
      },
      Math.min(request.timeoutMs, MAX_TIMER_MS),
    );
    current.deadline = setTimeout(
      () => this.lose("no reply after the timeout"),
      Math.min(request.timeoutMs + KILL_GRACE_MS + 10_000, MAX_TIMER_MS),
    );
    this.child.stdin?.write(`${words.map(quoteWord).join(" ")}\n`);
  }

  private take(chunk: Buffer, which: "out" | "err"): void {
    const c = this.current;
    if (!c) return;
    (which === "out" ? c.out : c.err).push(chunk);
    // The mark ends the stream's reply (nothing follows it before the next request); it may straddle chunks.
    const tail = Buffer.concat([c.tails[which], chunk]);
    c.tails[which] = tail.subarray(Math.max(0, tail.length - c.mark.length));
    if (!c.tails[which].equals(c.mark)) return;
    const all = Buffer.concat(which === "out" ? c.out : c.err);
    const body = [all.subarray(0, all.length - c.mark.length)];
    if (which === "out") {
      c.out = body;
      c.outDone = true;
    } else {
      c.err = body;
      c.errDone = true;
    }
    this.settle();
  }

  private onControl(text: string): void {
    this.control += text;
    let newline = this.control.indexOf("\n");
    while (newline >= 0) {
      const line = this.control.slice(0, newline);
      this.control = this.control.slice(newline + 1);
      const c = this.current;
      if (c && line.startsWith("p ")) c.pid = Number(line.slice(2));
      else if (c && line.startsWith("x ")) {
        // The request could not be read: no child, no output, no marks.
        c.outDone = c.errDone = true;
        c.code = Number(line.slice(2));
        this.settle();
      } else if (c && line.startsWith("e ")) {
        c.code = Number(line.slice(2));
        this.settle();
      }
      newline = this.control.indexOf("\n");
    }
  }

  private settle(): void {
    const c = this.current;
    if (!c?.outDone || !c.errDone || c.code === undefined) return;
    this.current = undefined;
    clearTimeout(c.timer);
    clearTimeout(c.killTimer);
    clearTimeout(c.deadline);
    // Whatever the child left running in its group goes with it.
    if (c.pid !== undefined) processGroup(c.pid).signal("SIGKILL");
    c.pending.resolve({
      stdout: Buffer.concat(c.out).toString("utf8"),
      stderr: Buffer.concat(c.err).toString("utf8"),
      code: c.code,
      timedOut: c.timedOut,
    });
    this.busy = false;
    this.idle();
  }

  private idle(): void {
    this.hold(false);
    this.onIdle(this);
  }

  private hold(on: boolean): void {
    holdHelper(this.child, on);
  }

  /** Asks the helper to end (helper-child.ts). */
  end(): void {
    if (!this.dead) endHelper(this.child);
  }

  private lose(why: string): void {
    if (this.dead) return;
    this.dead = true;
    const c = this.current;
    this.current = undefined;
    if (c) {
      clearTimeout(c.timer);
      clearTimeout(c.killTimer);
      clearTimeout(c.deadline);
      if (c.pid !== undefined) processGroup(c.pid).signal("SIGKILL");
      c.pending.reject(new HelperLost(`the spawn helper was lost: ${why}`));
    }
    killHelper(this.child);
    this.busy = false;
    this.hold(false);
    this.onIdle(this);
  }
}

export interface SpawnHelperPool {
  run(request: HelperRequest): Promise<HelperResult>;
  /** Helpers started so far (a lost one is replaced by the next request). */
  readonly started: number;
  /** Lets the pool grow to `size` helpers (never shrinks it): one a worker and one more for the merge. */
  widen(size: number): void;
  close(): void;
}

/**
 * Up to `size` helpers, started when a request finds all of them busy, with `env` as every child's base
 * environment. Requests beyond that wait their turn.
 */
export function createSpawnHelperPool(
  shell: HelperShell,
  baseEnv: NodeJS.ProcessEnv,
  size = 2,
): SpawnHelperPool {
  const env = { ...baseEnv };
  // What a bash reads or imports at start (a startup file, exported functions) has no place in the helper.
  for (const name of Object.keys(env))
    if (name === "BASH_ENV" || name === "ENV" || name.startsWith("BASH_FUNC_")) delete env[name];
  const helpers: Helper[] = [];
  const waiting: Pending[] = [];
  let started = 0;
  let closed = false;
  const next = (helper: Helper) => {
    if (helper.dead) {
      const i = helpers.indexOf(helper);
      if (i >= 0) helpers.splice(i, 1);
    }
    dispatch();
  };
  // Helpers are ended and reaped before gantry exits, so their CPU (and their children's) is gantry's in
  // any accounting of its process tree, and none outlives it by a moment.
  // Work scheduled after that (another beforeExit listener's) starts a helper again, ended the same way.
  let ending = false;
  const endAll = () => {
    ending = false;
    for (const helper of helpers.splice(0)) helper.end();
  };
  const dispatch = () => {
    if (!ending && !closed) {
      ending = true;
      process.once("beforeExit", endAll);
    }
    while (waiting.length > 0 && !closed) {
      let helper = helpers.find((h) => !h.busy && !h.dead);
      if (!helper && helpers.length < size) {
        helper = new Helper(shell, env, next);
        started += 1;
        helpers.push(helper);
      }
      if (!helper || helper.busy) return;
      helper.run(waiting.shift() as Pending);
    }
  };
  return {
    run(request) {
      return new Promise((resolve, reject) => {
        if (closed) return reject(new HelperLost("the spawn helper pool is closed"));
        // Refused here, at once: a word that is not text would fail in the middle of a helper's request,
        // leaving it busy until the reply's deadline.
        const bad = [request.cwd, ...request.argv].findIndex((word) => typeof word !== "string");
        if (bad >= 0 || request.argv.length === 0)
          return reject(new TypeError(`spawn helper: a request's words must be text (word ${bad} is not)`));
        waiting.push({ request, resolve, reject });
        dispatch();
      });
    },
    get started() {
      return started;
    },
    widen(to) {
      size = Math.max(size, to);
      dispatch();
    },
    close() {
      closed = true;
      process.removeListener("beforeExit", endAll);
      for (const helper of helpers) helper.child.kill("SIGKILL");
      helpers.length = 0;
    },
  };
}
