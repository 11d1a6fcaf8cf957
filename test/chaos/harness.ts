import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CLI, type CliResult, cliEnvironment } from "../e2e/harness.js";

/** What the chaos tests share: a seeded PRNG, the CLI as a handle, /proc, and the run files. */

export * from "./project.js";

/** mulberry32: small, fast and good enough to pick faults; the same seed replays the same choices. */
export class Rng {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

/** The seed a test uses: GANTRY_CHAOS_SEED replays one, else a fresh one that the failure message names. */
export function chaosSeed(): number {
  const fixed = process.env.GANTRY_CHAOS_SEED;
  if (fixed !== undefined && fixed !== "") return Number.parseInt(fixed, 10) >>> 0;
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

export interface Running {
  child: ChildProcess;
  done: Promise<CliResult & { signal: NodeJS.Signals | null; ms: number }>;
  output: () => string;
}

/** Starts the built CLI in its own process group (so a test can signal the group, like a terminal does). */
export function startGantry(
  root: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Running {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: root,
    env: cliEnvironment(options.env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c) => {
    stdout += c;
  });
  child.stderr?.on("data", (c) => {
    stderr += c;
  });
  const timer = setTimeout(() => killGroup(child.pid, "SIGKILL"), options.timeoutMs ?? 120_000);
  const done = new Promise<CliResult & { signal: NodeJS.Signals | null; ms: number }>((resolveDone) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolveDone({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
  return { child, done, output: () => stdout + stderr };
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Gone already.
  }
}

export async function waitFor(what: string, condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface ProcInfo {
  pid: number;
  pgid: number;
  state: string;
  cmdline: string;
}

/**
 * Live (not zombie) processes whose environment holds `marker`: everything a gantry started with
 * `GANTRY_CHAOS_MARKER=<marker>` spawned, whatever group or session it moved to.
 */
export function markedProcesses(marker: string): ProcInfo[] {
  const found: ProcInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1");
      if (!environ.includes(`GANTRY_CHAOS_MARKER=${marker}`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const state = fields[0] ?? "?";
      if (state === "Z" || state === "X") continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "latin1").replaceAll("\0", " ").trim();
      found.push({ pid: Number(entry), pgid: Number(fields[2]), state, cmdline });
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** Waits up to `ms` for the marked processes to go, then SIGKILLs what is left; returns what was left. */
export async function reapMarked(marker: string, ms = 0): Promise<ProcInfo[]> {
  const deadline = Date.now() + ms;
  let left = markedProcesses(marker);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = markedProcesses(marker);
  }
  for (const p of left) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
  return left;
}

export function runDirsOf(root: string): string[] {
  const runs = join(root, ".gantry", "runs");
  return existsSync(runs)
    ? readdirSync(runs)
        .sort()
        .map((d) => join(runs, d))
    : [];
}

/** Lines of a JSONL file; a last line that does not parse is returned as `torn`, any other bad line throws. */
export function readJsonlStrict(path: string): { rows: Record<string, unknown>[]; torn?: string } {
  if (!existsSync(path)) return { rows: [] };
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  const endsClean = lines.at(-1) === "";
  if (endsClean) lines.pop();
  const rows: Record<string, unknown>[] = [];
  let torn: string | undefined;
  lines.forEach((line, i) => {
    try {
      rows.push(JSON.parse(line));
    } catch {
      if (i === lines.length - 1 && !endsClean) torn = line;
      else throw new Error(`${path}: line ${i + 1} does not parse and is not the torn last line`);
    }
  });
  return torn === undefined ? { rows } : { rows, torn };
}

export const prdFile = (root: string) => resolve(root, ".gantry/features/f/prd.json");
