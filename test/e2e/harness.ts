import { execFileSync, spawn } from "node:child_process";
import {
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI = join(REPO, "dist", "cli.js");
/**
 * Biome's own binary where npm put it for this platform: the `.bin/biome` wrapper is a node script that
 * looks for that binary (and runs `ldd` to tell musl from glibc), a node start on every lint of every run.
 */
export const BIOME = nativeBiome() ?? join(REPO, "node_modules", ".bin", "biome");

function nativeBiome(): string | undefined {
  const dir = join(REPO, "node_modules", "@biomejs");
  const prefix = `cli-${process.platform}-${process.arch}`;
  const names = existsSync(dir)
    ? readdirSync(dir).filter((n) => n === prefix || n.startsWith(`${prefix}-`))
    : [];
  for (const name of names.sort()) {
    const bin = join(dir, name, "biome");
    if (existsSync(bin)) return bin;
  }
  return undefined;
}
/** The scripted agent in sh; it hands a plan it was not given as files to scripted-agent.mjs. */
const AGENT = join(REPO, "test", "e2e", "fixtures", "scripted-agent.sh");
/** Where the CLI keeps ledger keys in tests: this process's own directory, never the user's state. */
export const TEST_STATE_HOME = process.env.XDG_STATE_HOME?.includes("gantry-test-state-")
  ? process.env.XDG_STATE_HOME
  : mkdtempSync(join(tmpdir(), "gantry-test-state-"));

export interface AgentSession {
  write?: Record<string, string>;
  /** Paths removed after writing. */
  remove?: string[];
  /** A shell command run after writing and removing (git, symlinks, background processes). */
  sh?: string;
  print?: string;
  /** Written to $GANTRY_OUTPUT_FILE (a plan or research session's answer); an object as JSON. */
  output?: unknown;
  sleepMs?: number;
  exit?: number;
}

export interface ProjectSpec {
  stories: Record<string, unknown>[];
  /** Story id → the sessions the scripted agent plays in order (the last repeats). */
  plan: Record<string, AgentSession[]>;
  config?: Record<string, unknown>;
  /** Extra files in the initial commit. */
  files?: Record<string, string>;
}

/** A pending story as a PRD holds it, starting at the fast tier (routing.complexity simple). */
export const story = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `Story ${id}`,
  description: `Implement ${id}`,
  acceptanceCriteria: [`${id} works`],
  status: "pending",
  passes: false,
  routing: { complexity: "simple" },
  ...extra,
});

export const passingTest = (name: string, body = "assert.equal(1 + 1, 2);") =>
  `import assert from "node:assert/strict";\nimport { test } from "node:test";\ntest(${JSON.stringify(name)}, async () => {\n  ${body}\n});\n`;
export const failingTest = (name: string) => passingTest(name, "assert.equal(1 + 1, 3);");

/** The config every e2e project starts from: node's test runner, Biome lint with useConst as an error. */
export function baseConfig(): Record<string, unknown> {
  return {
    agent: { default: "command", timeoutSeconds: 30, command: { run: `sh ${JSON.stringify(AGENT)}` } },
    quality: {
      commands: {
        test: "node --test --test-reporter=spec test/",
        lint: `${BIOME} lint src`,
        lintFix: `${BIOME} lint --write src`,
      },
      timeoutSeconds: 60,
    },
    execution: {
      maxStageRetries: 5,
      rectify: { enabled: true, maxAttempts: 2 },
      autofix: { enabled: true, maxAttempts: 2 },
      regression: { mode: "deferred" },
    },
    routing: { tiers: ["fast", "balanced", "powerful"] },
    // Stories here often carry no acceptance criteria; the readiness gate has its own tests (readiness.test.ts).
    readiness: { enabled: false },
  };
}

/** A temporary git repository with a passing baseline, a feature `f`, and the scripted agent's plan. */
export function makeProject(spec: ProjectSpec): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-e2e-"));
  const files: Record<string, string> = {
    "package.json": '{ "name": "e2e-project", "type": "module", "private": true }\n',
    "biome.json": JSON.stringify({
      linter: { rules: { preset: "recommended", style: { useConst: "error" } } },
    }),
    ".gitignore": ".gantry/runs/\n.gantry/lock\n.agent-log.jsonl\n.agent-plan.json\n",
    "src/base.js": "export const base = 1;\n",
    "test/base.test.js": passingTest("base"),
    ".gantry/config.json": JSON.stringify(spec.config ?? baseConfig(), null, 2),
    ".gantry/features/f/prd.json": JSON.stringify({ feature: "f", userStories: spec.stories }, null, 2),
    ".agent-plan.json": JSON.stringify(spec.plan),
    ...spec.files,
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  cpSync(emptyRepository(), join(root, ".git"), { recursive: true });
  writePlanFiles(root, spec.plan, JSON.stringify(spec.plan));
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "baseline");
  return root;
}

/**
 * The plan as the sh agent reads it (fixtures/scripted-agent.sh): .git/agent-plan/<key>/<n>/, beside the
 * JSON it was made from; a .agent-plan.json that is not that JSON (a test's own), or a plan that writes
 * outside the project, is played by the node agent.
 */
function writePlanFiles(root: string, plan: Record<string, AgentSession[]>, json: string): void {
  const outside = (path: string) => isAbsolute(path) || path.split(/[\\/]/).includes("..");
  const sessions = Object.values(plan).flat();
  if (sessions.some((s) => Object.keys(s.write ?? {}).some(outside))) return;
  const dir = join(root, ".git", "agent-plan");
  const put = (path: string, content: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  };
  for (const [key, list] of Object.entries(plan)) {
    mkdirSync(join(dir, key), { recursive: true });
    list.forEach((session, n) => {
      const at = join(dir, key, String(n));
      mkdirSync(at, { recursive: true });
      for (const [path, content] of Object.entries(session.write ?? {}))
        put(join(at, "files", path), content);
      if (session.remove) put(join(at, "remove"), `${session.remove.join("\n")}\n`);
      if (session.sh !== undefined) put(join(at, "sh"), session.sh);
      if (session.output !== undefined) {
        const text = typeof session.output === "string" ? session.output : JSON.stringify(session.output);
        put(join(at, "output"), text);
      }
      if (session.print) put(join(at, "print"), session.print);
      if (session.sleepMs) put(join(at, "sleep"), `${session.sleepMs / 1000}\n`);
      if (session.exit !== undefined) put(join(at, "exit"), `${session.exit}\n`);
    });
  }
  writeFileSync(`${dir}.json`, json);
}

let emptyGit: string | undefined;

/**
 * The .git of an empty repository on main with the e2e identity, made once per test process: a project
 * copies it rather than running `git init` and two `git config`s of its own.
 */
function emptyRepository(): string {
  if (emptyGit === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "gantry-e2e-empty-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    git(dir, "init", "-q", "-b", "main");
    git(dir, "config", "user.email", "e2e@example.com");
    git(dir, "config", "user.name", "e2e");
    emptyGit = join(dir, ".git");
  }
  return emptyGit;
}

export function git(root: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: root, encoding: "utf8" });
}

/**
 * The environment gantry runs with in tests: without node's test-runner context, which would make the
 * project's own `node --test` think it is nested and skip every file.
 */
export function cliEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_STATE_HOME: TEST_STATE_HOME, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a user would; `prefix` goes before node (`setpriv --reuid=...` to run as another user). */
export function gantry(
  root: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; prefix?: string[] } = {},
): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    const [bin, ...rest] = [...(options.prefix ?? []), process.execPath, CLI, ...args] as [
      string,
      ...string[],
    ];
    const child = spawn(bin, rest, {
      cwd: root,
      env: cliEnvironment(options.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    // A safety kill, not a speed limit: under a loaded CI machine a whole run can take a minute or more.
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 150_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

export function prdStories(
  root: string,
): Record<string, { status: string; passes: boolean; attempts?: number }> {
  const prd = JSON.parse(readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"));
  return Object.fromEntries(prd.userStories.map((s: { id: string }) => [s.id, s]));
}

export function agentCalls(
  root: string,
): { story: string; role: string; tier: string; model: string; promptFileMatches: boolean }[] {
  const path = join(root, ".agent-log.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

export function runDirs(root: string): string[] {
  const runs = join(root, ".gantry", "runs");
  return existsSync(runs)
    ? readdirSync(runs)
        .sort()
        .map((d) => join(runs, d))
    : [];
}

export function readJsonl<T = Record<string, unknown>>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

export function lastRun(root: string): {
  events: Record<string, unknown>[];
  ledger: Record<string, unknown>[];
  dir: string;
} {
  const dir = runDirs(root).at(-1);
  if (!dir) throw new Error("no run directory");
  return { dir, events: readJsonl(join(dir, "events.jsonl")), ledger: readJsonl(join(dir, "ledger.jsonl")) };
}

export function copyFixture(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
}

/** Gives `path` and everything under it (symbolic links not followed) to the user and group `id`. */
export function chownTree(path: string, id: number): void {
  chownSync(path, id, id);
  if (!statSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) {
    const child = join(path, name);
    if (statSync(child, { throwIfNoEntry: false })?.isSymbolicLink()) continue;
    chownTree(child, id);
  }
}
