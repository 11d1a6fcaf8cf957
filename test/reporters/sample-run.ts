import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEventBus, type EventBus, type SubscriberFault } from "../../src/bus/event-bus.js";
import { VerdictBook } from "../../src/ledger/book.js";
import { recordVerdict } from "../../src/ledger/record.js";
import type { EventPayloads } from "../../src/model/events.js";
import type { StageName, StageResult } from "../../src/model/stage.js";
import type { StorySummary } from "../../src/model/story.js";
import type { VerifyResult } from "../../src/model/verify.js";
import type { Reporter, ReporterContext, ReporterStream } from "../../src/reporters/types.js";
import { wireLedger } from "../../src/subscribers/ledger.js";
import { wireReporters } from "../../src/subscribers/reporters.js";
import { silentLogger } from "../../src/util/logger.js";

export const RUN_ID = "20260304-050607-ab12";
export const FEATURE = "checkout";
/** A title with everything that needs escaping somewhere: `%`, a newline, `::`, `,`, quotes, markup, a pipe. */
export const NASTY_TITLE = 'Apply 10% discount\ncode :: "quoted" <b>&amp;</b>, a | b';
export const STORIES = [
  { id: "US-001", title: "Add cart total", status: "passed" },
  { id: "US-002", title: NASTY_TITLE, status: "failed" },
  { id: "US-003", title: "Show receipt", status: "blocked" },
] as const;
export const FAILURE_MESSAGE = "expected 90 to equal 81 <cents> & ]]> \u001b[31mred\u001b[39m";

export interface Capture extends ReporterStream {
  text: string;
}
export function capture(tty = false): Capture {
  const stream: Capture = {
    text: "",
    isTTY: tty,
    columns: 100,
    rows: 30,
    write(chunk: string) {
      stream.text += chunk;
      return true;
    },
  };
  return stream;
}

/** A temporary directory under one root removed when the process ends. */
const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-reporters-")));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
let dirs = 0;
export function freshDir(name = "case"): string {
  const dir = join(work, `${name}-${++dirs}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The run's book of verdicts for each sample bus: the sample run records its gates in it (src/ledger/record.ts). */
const books = new WeakMap<EventBus, VerdictBook>();

/** A bus on a clock that moves 1.5 s per event, with the real ledger subscriber wired (it writes `gate:verdict`). */
export function sampleBus(runDir: string): { bus: EventBus; faults: SubscriberFault[]; dispose: () => void } {
  let tick = Date.parse("2026-03-04T05:06:07.000Z");
  const faults: SubscriberFault[] = [];
  const bus = createEventBus({
    runId: RUN_ID,
    now: () => {
      tick += 1500;
      return new Date(tick);
    },
    onFault: (f) => faults.push(f),
    flushTimeoutMs: 2000,
  });
  books.set(bus, new VerdictBook(FEATURE, randomBytes(32)));
  const dispose = wireLedger(bus, { runDir });
  return { bus, faults, dispose };
}

export function context(runDir: string, over: Partial<ReporterContext> = {}): ReporterContext {
  return {
    root: join(runDir, "..", "..", ".."),
    runDir,
    stdout: capture(),
    stderr: capture(),
    env: {},
    now: () => new Date("2026-03-04T05:10:00.000Z"),
    ...over,
  };
}

const judged = { sha: "a".repeat(40), tree: "b".repeat(40) };

function verify(
  storyId: string,
  attempt: number,
  failing: number,
): VerifyResult & { judged: typeof judged; attempt: number } {
  return {
    storyId,
    strategy: "scoped",
    status: failing > 0 ? "TEST_FAILURE" : "PASS",
    success: failing === 0,
    runner: "node-test",
    passCount: 4,
    failCount: failing,
    skipCount: 0,
    totalCount: 4 + failing,
    failures: Array.from({ length: failing }, (_, i) => ({
      file: "test/discount.test.ts",
      name: `applies discount ${i + 1}`,
      message: FAILURE_MESSAGE,
    })),
    command: "node --test test/discount.test.ts",
    exitCode: failing > 0 ? 1 : 0,
    durationMs: 1234,
    rawOutputTail: "",
    judged,
    attempt,
  };
}

/**
 * A run of three stories: US-001 passes first time; US-002 fails verify, is rectified, escalates fast → balanced and
 * fails again on the top tier; US-003 depends on US-002 and is blocked. Every kind of event reporters care about.
 */
export function emitSampleRun(bus: EventBus): void {
  const emit = <K extends keyof EventPayloads>(type: K, payload: EventPayloads[K]) => bus.emit(type, payload);
  const sink = { bus, verdicts: books.get(bus) ?? new VerdictBook(FEATURE, randomBytes(32)) };
  const summary = (i: number, status: StorySummary["status"], attempts: number): StorySummary => ({
    ...(STORIES[i] as { id: string; title: string }),
    status,
    attempts,
  });
  const stage = (
    storyId: string,
    name: StageName,
    result: StageResult,
    durationMs: number,
    next?: StageName,
  ) => {
    emit("stage:enter", { storyId, stage: name });
    emit("stage:exit", { storyId, stage: name, result, durationMs, ...(next ? { next } : {}) });
  };
  const agent = (storyId: string, role: "implement" | "rectify", tier: string, costUsd: number) => {
    const call = { storyId, role, agent: "command", model: `model-${tier}`, tier };
    emit("agent:start", call);
    emit("agent:end", { ...call, exitCode: 0, durationMs: 20_000, costUsd, costBasis: "exact" });
  };
  const review = (storyId: string, attempt: number) => {
    emit("stage:enter", { storyId, stage: "review" });
    emit("review:start", { storyId, checks: ["typecheck", "lint"] });
    recordVerdict(sink, "review:result", {
      storyId,
      success: true,
      checks: [
        { name: "typecheck", success: true, exitCode: 0, output: "", findings: [] },
        { name: "lint", success: true, exitCode: 0, output: "", findings: [] },
      ],
      judged,
      attempt,
    });
    emit("stage:exit", {
      storyId,
      stage: "review",
      result: { action: "continue" },
      durationMs: 2100,
      next: "completion",
    });
  };
  const verifyStage = (storyId: string, attempt: number, failing: number, durationMs: number) => {
    emit("stage:enter", { storyId, stage: "verify" });
    emit("verify:start", { storyId, strategy: "scoped" });
    recordVerdict(sink, "verify:result", verify(storyId, attempt, failing));
    const next = failing > 0 ? "rectify" : "review";
    emit("stage:exit", { storyId, stage: "verify", result: { action: "continue" }, durationMs, next });
  };
  const C: StageResult = { action: "continue" };

  emit("run:start", { feature: FEATURE, totalStories: 3 });

  emit("story:start", { story: summary(0, "in-progress", 0), tier: "fast" });
  stage("US-001", "routing", C, 3, "execution");
  emit("stage:enter", { storyId: "US-001", stage: "execution" });
  agent("US-001", "implement", "fast", 0.12);
  emit("stage:exit", {
    storyId: "US-001",
    stage: "execution",
    result: C,
    durationMs: 20_400,
    next: "verify",
  });
  verifyStage("US-001", 1, 0, 1300);
  review("US-001", 1);
  stage("US-001", "completion", C, 450);
  emit("story:complete", {
    story: summary(0, "passed", 1),
    metrics: { durationMs: 24_253, costUsd: 0.12, attempts: 1, tier: "fast", agentCalls: 1 },
  });

  emit("story:start", { story: summary(1, "in-progress", 0), tier: "fast" });
  for (const [pass, tier] of [
    [1, "fast"],
    [2, "balanced"],
  ] as const) {
    stage("US-002", "routing", C, 2, "execution");
    emit("stage:enter", { storyId: "US-002", stage: "execution" });
    agent("US-002", "implement", tier, 0.05 * pass);
    emit("stage:exit", {
      storyId: "US-002",
      stage: "execution",
      result: C,
      durationMs: 18_000,
      next: "verify",
    });
    verifyStage("US-002", pass, 2, 1500);
    emit("stage:enter", { storyId: "US-002", stage: "rectify" });
    emit("rectify:attempt", {
      storyId: "US-002",
      attempt: 1,
      maxAttempts: 1,
      failures: verify("US-002", pass, 2).failures,
    });
    agent("US-002", "rectify", tier, 0.03);
    emit("stage:exit", {
      storyId: "US-002",
      stage: "rectify",
      result: { action: "retry", fromStage: "verify", reason: "rectify attempt 1: 2 tests failing" },
      durationMs: 9000,
    });
    verifyStage("US-002", pass, 1, 1400);
    emit("stage:enter", { storyId: "US-002", stage: "rectify" });
    emit("stage:exit", {
      storyId: "US-002",
      stage: "rectify",
      result: { action: "escalate", reason: "1 test still failing after 1 rectify attempts" },
      durationMs: 1,
    });
    if (pass === 1)
      emit("escalation:tier-change", {
        storyId: "US-002",
        from: "fast",
        to: "balanced",
        reason: "1 test still failing after 1 rectify attempts",
      });
  }
  emit("escalation:exhausted", { storyId: "US-002", attempts: 2 });
  emit("story:fail", {
    story: summary(1, "failed", 2),
    reason: "every tier failed; last: 1 test still failing after 1 rectify attempts",
  });

  emit("story:skip", { story: summary(2, "blocked", 0), reason: "blocked: depends on US-002 (failed)" });

  emit("run:complete", {
    summary: {
      passed: 1,
      failed: 1,
      skipped: 0,
      blocked: 1,
      paused: 0,
      durationMs: 95_000,
      costUsd: 0.33,
      costBasis: "partial",
    },
    exitCode: 1,
  });
}

/** Runs the sample run through one reporter made by `factory`, wired as gantry wires it; returns its context. */
export async function runSample(
  factory: (options: unknown, context: ReporterContext) => Reporter,
  options: unknown = {},
  over: Partial<ReporterContext> = {},
): Promise<{ ctx: ReporterContext; runDir: string; stdout: Capture; events: number }> {
  const runDir = join(freshDir("root"), ".gantry", "runs", RUN_ID);
  mkdirSync(runDir, { recursive: true });
  const ctx = context(runDir, over);
  const { bus, faults, dispose } = sampleBus(runDir);
  let events = 0;
  bus.onAny("count", () => {
    events += 1;
  });
  const off = wireReporters(bus, [{ name: "under-test", reporter: factory(options, ctx) }], {
    logger: silentLogger,
    warn: (line) => faults.push({ subscriber: "warn", event: "run:complete", error: new Error(line) }),
  });
  emitSampleRun(bus);
  await bus.flush();
  off();
  dispose();
  if (faults.length > 0) throw (faults[0] as SubscriberFault).error;
  return { ctx, runDir, stdout: ctx.stdout as Capture, events };
}
