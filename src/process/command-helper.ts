import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { commandHelperScript } from "./command-helper-shell.js";
import { isExecutableFile } from "./find-executable.js";
import { endHelper, holdHelper, killHelper } from "./helper-child.js";
import { quoteWord } from "./shell-word.js";
import { gantryStateDirectory } from "./state-directory.js";

/**
 * Long-lived bash processes that start gantry's long commands (agent sessions, tests, lint, typecheck) for
 * it, so that node does not fork its whole address space for each (command-helper-shell.ts has the
 * protocol). A child gets no pipe shared with later children: its
 * input and output are files of its own in a private directory, so a process it leaves behind can write
 * into nothing but its own, already read, file. One request at a time a helper; one more helper is started
 * when all are busy (a parallel run's sessions, review's checks side by side).
 */
export interface CommandRequest {
  argv: string[];
  cwd: string;
  /** Files: the child's stdin (`/dev/null` for none) and the file its stdout and stderr go to. */
  inputFile: string;
  outputFile: string;
  /** Exported for this child only, and removed from its environment. */
  set: Record<string, string>;
  unset: string[];
}

export interface CommandStart {
  /** The child's pid, once it started (it leads its own process group). */
  started: Promise<number>;
  /** Its exit code (128 + N for a signal N), or a reason the helper could not run it. */
  ended: Promise<{ code: number } | { lost: string }>;
}

class CommandHelper {
  readonly child: ChildProcess;
  busy = false;
  dead = false;
  private control = "";
  private current?: {
    onPid: (pid: number) => void;
    onEnd: (end: { code: number } | { lost: string }) => void;
  };

  constructor(
    env: NodeJS.ProcessEnv,
    private readonly onIdle: (helper: CommandHelper) => void,
  ) {
    this.child = spawn(
      "/bin/bash",
      ["--noprofile", "--norc", "-c", commandHelperScript(), "gantry-commands"],
      {
        env,
        stdio: ["pipe", "ignore", "ignore", "pipe"],
        // Its own session: a Ctrl-C meant for gantry reaches a command only through gantry's own handling.
        detached: true,
      },
    );
    const [, , , ctl] = this.child.stdio as unknown as [Writable, null, null, Readable];
    ctl.on("data", (chunk: Buffer) => this.onControl(chunk.toString("latin1")));
    this.child.stdin?.on("error", () => this.lose("its input closed"));
    this.child.once("error", (error) => this.lose(error.message));
    this.child.once("exit", (code, signal) => this.lose(`it exited (${signal ?? code})`));
    this.hold(false);
  }

  run(request: CommandRequest): CommandStart {
    this.busy = true;
    this.hold(true);
    let onPid: (pid: number) => void = () => {};
    let onEnd: (end: { code: number } | { lost: string }) => void = () => {};
    const started = new Promise<number>((resolve) => {
      onPid = resolve;
    });
    const ended = new Promise<{ code: number } | { lost: string }>((resolve) => {
      onEnd = resolve;
    });
    this.current = { onPid, onEnd };
    const sets = Object.entries(request.set).map(([k, v]) => `${k}=${v}`);
    const words = [
      request.cwd,
      request.inputFile,
      request.outputFile,
      String(sets.length),
      ...sets,
      String(request.unset.length),
      ...request.unset,
      ...request.argv,
    ];
    this.child.stdin?.write(`${words.map(quoteWord).join(" ")}\n`);
    return { started, ended };
  }

  private onControl(text: string): void {
    this.control += text;
    let newline = this.control.indexOf("\n");
    while (newline >= 0) {
      const line = this.control.slice(0, newline);
      this.control = this.control.slice(newline + 1);
      const c = this.current;
      if (c && line.startsWith("p ")) c.onPid(Number(line.slice(2)));
      else if (c && (line.startsWith("e ") || line.startsWith("x "))) {
        this.current = undefined;
        this.busy = false;
        c.onEnd({ code: Number(line.slice(2)) });
        this.hold(false);
        this.onIdle(this);
      }
      newline = this.control.indexOf("\n");
    }
  }

  private hold(on: boolean): void {
    holdHelper(this.child, on);
  }

  /** Asks the helper to end (helper-child.ts). */
  end(): void {
    if (!this.dead) endHelper(this.child);
  }

  lose(why: string): void {
    if (this.dead) return;
    this.dead = true;
    const c = this.current;
    this.current = undefined;
    c?.onEnd({ lost: `the command helper was lost: ${why}` });
    killHelper(this.child);
    this.busy = false;
    this.hold(false);
    this.onIdle(this);
  }
}

export interface CommandHelperPool {
  /** Starts the request on an idle helper (a new one when all are busy). */
  run(request: CommandRequest): CommandStart;
  /** The helpers' base environment: a request names only what differs from it. */
  readonly env: Readonly<NodeJS.ProcessEnv>;
  /** The private directory for the children's input and output files. */
  readonly directory: string;
  readonly started: number;
  close(): void;
}

/** A pool of command helpers with `baseEnv` as every child's starting environment; undefined without bash. */
export function createCommandHelperPool(baseEnv: NodeJS.ProcessEnv): CommandHelperPool | undefined {
  if (process.platform === "win32" || !isExecutableFile("/bin/bash")) return undefined;
  const env = { ...baseEnv };
  // What a bash reads or imports at start (a startup file, exported functions) has no place in the helper.
  for (const name of Object.keys(env))
    if (name === "BASH_ENV" || name === "ENV" || name.startsWith("BASH_FUNC_")) delete env[name];
  const directory = privateDirectory();
  const helpers: CommandHelper[] = [];
  let started = 0;
  let closed = false;
  const onIdle = (helper: CommandHelper) => {
    if (helper.dead) helpers.splice(helpers.indexOf(helper) >>> 0, 1);
  };
  const endAll = () => {
    for (const helper of helpers.splice(0)) helper.end();
  };
  process.once("beforeExit", endAll);
  process.once("exit", () => rmSync(directory, { recursive: true, force: true }));
  return {
    run(request) {
      if (closed) {
        const lost = { lost: "the command helper pool is closed" };
        return { started: new Promise<number>(() => {}), ended: Promise.resolve(lost) };
      }
      let helper = helpers.find((h) => !h.busy && !h.dead);
      if (!helper) {
        helper = new CommandHelper(env, onIdle);
        started += 1;
        helpers.push(helper);
        // beforeExit ended the idle ones: a command started after that gets its helper ended the same way.
        process.removeListener("beforeExit", endAll);
        process.once("beforeExit", endAll);
      }
      return helper.run(request);
    },
    env,
    directory,
    get started() {
      return started;
    },
    close() {
      closed = true;
      process.removeListener("beforeExit", endAll);
      for (const helper of helpers.splice(0)) helper.lose("closed");
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A directory only this user can enter, for this process's children's files: under gantry's state
 * directory, which sandboxed sessions see as an empty tmpfs; the system's temporary directory otherwise.
 */
function privateDirectory(): string {
  try {
    const parent = join(gantryStateDirectory(), "commands");
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    return mkdtempSync(join(parent, `${process.pid}-`));
  } catch {
    return mkdtempSync(join(tmpdir(), "gantry-commands-"));
  }
}
