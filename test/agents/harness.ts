import assert from "node:assert/strict";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { after } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { AgentAdapter, AgentRequest } from "../../src/agents/adapter.js";
import { createEventBus } from "../../src/bus/event-bus.js";
import { type Config, type ConfigInput, ConfigSchema } from "../../src/config/schema.js";
import type { EventName, EventOf } from "../../src/model/events.js";
import { StorySchema } from "../../src/prd/story.js";
import type { RunContext, StoryContext } from "../../src/stages/context.js";
import { silentLogger } from "../../src/util/logger.js";
import { createRedactor } from "../../src/util/redact.js";
import { type FakeMode, fakeOutput } from "./fake-output.js";

const FAKE = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "fake-cli.sh");
const MODES: FakeMode[] = ["success", "error", "ratelimit"];
export const CLIS = ["claude", "codex", "gemini", "aider", "opencode"] as const;

export interface Fakes {
  /** Temporary directory holding everything below. */
  root: string;
  /** Put first on PATH: one fake executable per CLI. */
  bin: string;
  /** The "repository" the agent runs in. */
  repo: string;
  /** A folder per call, in call order (fixtures/fake-cli.sh). */
  log: string;
}

export interface Call {
  cli: string;
  argv: string[];
  stdin: string;
  message?: string;
  cwd: string;
  env: Record<string, string>;
}

/** Installs the fake CLIs first on this process's PATH (each test file runs in its own process). */
export function installFakes(): Fakes {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-agents-")));
  const bin = join(root, "bin");
  const repo = join(root, "repo");
  mkdirSync(bin);
  mkdirSync(repo);
  for (const name of CLIS) {
    copyFileSync(FAKE, join(bin, name));
    chmodSync(join(bin, name), 0o755);
  }
  const log = join(root, "calls");
  mkdirSync(log);
  process.env.PATH = `${bin}${delimiter}${process.env.PATH ?? ""}`;
  process.env.FAKE_LOG = log;
  after(() => rmSync(root, { recursive: true, force: true }));
  const fakes = { root, bin, repo, log };
  renderOutputs(fakes);
  return fakes;
}

/** What each fake prints in each mode, for the no-cost and final-message settings now in the environment. */
function renderOutputs(fakes: Fakes): void {
  const options = { noCost: process.env.FAKE_NO_COST === "1", final: process.env.FAKE_FINAL };
  for (const cli of CLIS) {
    const dir = join(fakes.root, "out", cli);
    mkdirSync(dir, { recursive: true });
    for (const mode of MODES) {
      const { stdout, stderr, code } = fakeOutput(cli, mode, options);
      writeFileSync(join(dir, `${mode}.out`), stdout);
      writeFileSync(join(dir, `${mode}.err`), stderr);
      writeFileSync(join(dir, `${mode}.code`), `${code}\n`);
    }
  }
}

/** NUL-separated strings as the fake writes them. */
const fields = (text: string): string[] => (text === "" ? [] : text.slice(0, -1).split("\0"));

export function calls(fakes: Fakes): Call[] {
  if (!existsSync(fakes.log)) return [];
  const numbers = readdirSync(fakes.log)
    .map(Number)
    .sort((a, b) => a - b);
  // A call's folder is complete once its cli file is there, the fake's last write before it prints.
  return numbers
    .map((n) => join(fakes.log, String(n)))
    .filter((dir) => existsSync(join(dir, "cli")))
    .map((dir) => {
      const read = (name: string) => readFileSync(join(dir, name), "utf8");
      const env = fields(read("env"))
        .filter((entry) => entry.startsWith("GANTRY_"))
        .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]);
      const call: Call = {
        cli: read("cli").trimEnd(),
        argv: fields(read("argv")),
        stdin: read("stdin"),
        cwd: read("cwd").trimEnd(),
        env: Object.fromEntries(env),
      };
      if (existsSync(join(dir, "message"))) call.message = read("message");
      return call;
    });
}

/** Clears the call log and the fake's modes. */
export function reset(
  fakes: Fakes,
  mode: {
    FAKE_MODE?: string;
    FAKE_RATE_LIMIT_CALLS?: string;
    FAKE_NO_COST?: string;
    FAKE_FINAL?: string;
  } = {},
): void {
  rmSync(fakes.log, { recursive: true, force: true });
  mkdirSync(fakes.log);
  for (const key of ["FAKE_MODE", "FAKE_RATE_LIMIT_CALLS", "FAKE_NO_COST", "FAKE_FINAL"] as const) {
    const value = mode[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  renderOutputs(fakes);
}

export function config(input: ConfigInput = {}): Config {
  return ConfigSchema.parse(input);
}

let prompts = 0;

/** A request as runAgentSession builds it, with the prompt file written. */
export function request(
  fakes: Fakes,
  adapter: AgentAdapter,
  overrides: Partial<AgentRequest> & { prompt?: string; tier?: string } = {},
): AgentRequest {
  const tier = overrides.tier ?? "balanced";
  const prompt = overrides.prompt ?? "# Implement: US-001 — Add a cart total\n\nSum the lines.\n";
  const promptFile = join(fakes.root, `prompt-${++prompts}.md`);
  writeFileSync(promptFile, prompt);
  return {
    role: "implement",
    storyId: "US-001",
    attempt: 1,
    tier,
    model: adapter.modelFor(tier),
    prompt,
    promptFile,
    cwd: fakes.repo,
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    feature: "checkout",
    runId: "run-1",
    sessionId: "run-1/US-001/1",
    ...overrides,
  };
}

/** A prompt of about `bytes` characters, with lines that make a cut or a reordering visible. */
export function bigPrompt(bytes: number): string {
  const lines: string[] = ["# Implement: US-001 — big", 'it\'s "quoted" $HOME `tick` \\ back'];
  let length = lines.join("\n").length;
  for (let i = 0; length < bytes; i++) {
    const line = `line ${i}: ${"x".repeat(90)} ünïcødé ✓`;
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join("\n")}\nEND OF PROMPT\n`;
}

export interface SessionHarness {
  ctx: StoryContext;
  run: RunContext;
  events: { type: EventName; event: EventOf<EventName> }[];
  abort: AbortController;
}

/** The slice of a run that runAgentSession uses, around one adapter. */
export function sessionHarness(fakes: Fakes, adapter: AgentAdapter, cfg: Config): SessionHarness {
  const bus = createEventBus({ runId: "run-1" });
  const events: SessionHarness["events"] = [];
  bus.onAny("test", (type, event) => {
    events.push({ type, event });
  });
  const abort = new AbortController();
  const runDir = join(fakes.root, `run-${++prompts}`);
  mkdirSync(runDir);
  const run = {
    runId: "run-1",
    feature: "checkout",
    root: fakes.repo,
    runDir,
    config: cfg,
    bus,
    agent: adapter,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    signal: abort.signal,
    cost: { usd: 0, sessions: 0, byBasis: { exact: 0, estimated: 0, unknown: 0 } },
    redact: createRedactor([]),
    requests: { vetoes: new Map() },
  } as unknown as RunContext;
  const story = StorySchema.parse({
    id: "US-001",
    title: "Add a cart total",
    acceptanceCriteria: ["total sums lines"],
  });
  const ctx: StoryContext = {
    run,
    story,
    logger: silentLogger,
    tier: "balanced",
    pass: 1,
    baseSha: "0".repeat(40),
    failureHistory: [],
    rectifyAttempts: 0,
    autofixAttempts: 0,
    agentCalls: 0,
    costUsd: 0,
  };
  return { ctx, run, events, abort };
}

/** Live (not zombie) processes whose command line holds `marker`, from /proc. */
export function liveProcesses(marker: string): { pid: number; cmdline: string }[] {
  const out: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      if (state === "Z" || state === "X") continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes(marker)) out.push({ pid: Number(entry), cmdline });
    } catch {
      // Gone while we looked.
    }
  }
  return out;
}

/** Killed processes leave /proc a moment after the signal; poll for a bounded time. */
export async function assertNoneLeft(marker: string): Promise<void> {
  const deadline = Date.now() + 3000;
  while (liveProcesses(marker).length > 0 && Date.now() < deadline) await delay(25);
  assert.deepEqual(liveProcesses(marker), [], `processes of ${marker} left running`);
}
