/**
 * The event bus under a run's real subscriber set (ledger, events log, plain progress to a null stream),
 * fed the events of passing stories, against bare mitt with as many no-op handlers; and the
 * heap after 100,000 events against the heap before (gc first: a bus that keeps payloads grows).
 * Run alone: `node --expose-gc --import tsx bench/bus.bench.ts` (without --expose-gc the heap part runs
 * in a child process that has it).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import mittImport, { type Emitter } from "mitt";
import { createEventBus, type EventBus } from "../src/bus/event-bus.js";
import { VerdictBook } from "../src/ledger/book.js";
import { type GateResult, recordVerdict } from "../src/ledger/record.js";
import type { EventName, EventPayloads } from "../src/model/events.js";
import { progressLineIn, stamp } from "../src/reporters/progress-lines.js";
import { RunModel } from "../src/reporters/run-model.js";
import type { EventArgs } from "../src/reporters/types.js";
import { wireEventsLog } from "../src/subscribers/events-log.js";
import { wireLedger } from "../src/subscribers/ledger.js";
import { median, type Row, row } from "./harness.js";

const mitt = mittImport as unknown as <T extends Record<string, unknown>>() => Emitter<T>;

/** Events for the heap figure; the rate is timed over RATE_EVENTS, RUNS times. */
export const EVENTS = 100_000;
const RATE_EVENTS = 30_000;
const RUNS = 3;
const HEAP_RUNS = 2;

type Emit = <K extends EventName>(type: K, payload: EventPayloads[K]) => void;

/** The events one passing story emits (each result recorded as a gate:verdict by the run's emit), in order. */
function storyEvents(emit: Emit, n: number): number {
  const storyId = `US-${n}`;
  const story = { id: storyId, title: `Story ${n}`, status: "in-progress" as const, attempts: 1 };
  const judged = { sha: "a".repeat(40), tree: "b".repeat(40) };
  const call = { storyId, role: "implement" as const, agent: "command", model: "balanced", tier: "balanced" };
  const cont = { action: "continue" as const };
  emit("story:start", { story, tier: "balanced" });
  for (const stage of ["routing", "execution", "verify", "review", "completion"] as const) {
    emit("stage:enter", { storyId, stage });
    if (stage === "execution") {
      emit("agent:start", call);
      emit("agent:end", { ...call, exitCode: 0, durationMs: 7, costUsd: 0, costBasis: "unknown" });
      emit("run:cost-check", { costUsd: 0, limitUsd: 30 });
    } else if (stage === "verify") {
      emit("verify:start", { storyId, strategy: "scoped" });
      emit("verify:result", {
        storyId,
        strategy: "scoped",
        status: "PASS",
        success: true,
        runner: "node-test",
        passCount: 1,
        failCount: 0,
        skipCount: 0,
        totalCount: 1,
        failures: [],
        command: "node --test",
        exitCode: 0,
        durationMs: 6,
        rawOutputTail: `TAP version 13\n${"ok 1 - a test with a name of some length\n".repeat(20)}1..20\n# tests 20\n# pass 20\n`,
        judged,
        attempt: 1,
      });
    } else if (stage === "review") {
      emit("review:start", { storyId, checks: ["typecheck", "lint"] });
      emit("review:result", {
        storyId,
        success: true,
        checks: ["typecheck", "lint"].map((name) => ({
          name,
          success: true,
          exitCode: 0,
          output: "",
          findings: [],
        })),
        judged,
        attempt: 1,
      });
    }
    emit("stage:exit", { storyId, stage, result: cont, durationMs: 3 });
  }
  emit("story:complete", {
    story: { ...story, status: "passed" },
    metrics: { durationMs: 40, costUsd: 0, attempts: 1, tier: "balanced", agentCalls: 1 },
  });
  return 19;
}

/** Emits at least `count` events (whole stories) through `emit`; returns how many. */
function feed(emit: Emit, count: number): number {
  let sent = 0;
  for (let n = 1; sent < count; n++) sent += storyEvents(emit, n);
  return sent;
}

const nullStream = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/** A bus with the run's subscribers, writing into a temporary run directory. */
function runBus(): { bus: EventBus; emit: Emit; close(): void } {
  const runDir = mkdtempSync(join(tmpdir(), "gantry-bench-bus-"));
  const bus = createEventBus({ runId: "bench", onFault: ({ error }) => console.error(error) });
  const sink = nullStream();
  const model = new RunModel();
  const offs = [
    wireLedger(bus, { runDir }),
    wireEventsLog(bus, { runDir }),
    // The default reporter's lines outside a terminal, with the run model it keeps for stage verdicts.
    bus.onAny("progress", (type, event) => {
      const args = [type, event] as EventArgs;
      model.apply(...args);
      const line = progressLineIn(model, ...args);
      if (line !== undefined) sink.write(`${stamp(new Date())}${line}\n`);
    }),
  ];
  // As the stages do: a gate's result is recorded where it is judged (src/ledger/record.ts).
  const verdicts = new VerdictBook("bench", randomBytes(32));
  const emit: Emit = (type, payload) => {
    if (type === "verify:result" || type === "review:result")
      recordVerdict({ bus, verdicts }, type as GateResult, payload as EventPayloads[GateResult]);
    else bus.emit(type, payload);
  };
  return {
    bus,
    emit,
    close() {
      for (const off of offs) off();
      rmSync(runDir, { recursive: true, force: true });
    },
  };
}

export function busRate(count: number): number {
  const { emit, close } = runBus();
  try {
    const started = performance.now();
    const sent = feed(emit, count);
    return sent / ((performance.now() - started) / 1000);
  } finally {
    close();
  }
}

export function mittRate(count: number): number {
  const emitter = mitt<Record<string, unknown>>();
  for (let i = 0; i < 4; i++) emitter.on("*", () => {});
  const started = performance.now();
  // The payload as the bus builds it (runId and time added), so both sides allocate the same.
  const sent = feed(
    (type, payload) => emitter.emit(type, { ...payload, runId: "bench", at: new Date().toISOString() }),
    count,
  );
  return sent / ((performance.now() - started) / 1000);
}

interface Heap {
  beforeMb: number;
  afterMb: number;
}

/** Heap used after gc, before and after `count` events through a run's bus (needs --expose-gc). */
function measureHeap(count: number): Heap {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("measureHeap needs node --expose-gc");
  const { emit, close } = runBus();
  try {
    feed(emit, 1_000); // warm up: code, buffers
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    feed(emit, count);
    gc();
    gc();
    const after = process.memoryUsage().heapUsed;
    return { beforeMb: before / 2 ** 20, afterMb: after / 2 ** 20 };
  } finally {
    close();
  }
}

/** In this process when it has gc, else in a child that has. */
function heapRuns(runs: number): Heap[] {
  if ((globalThis as { gc?: () => void }).gc) return Array.from({ length: runs }, () => measureHeap(EVENTS));
  const child = spawnSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), "--heap-child", String(runs)],
    { encoding: "utf8", maxBuffer: 1 << 20 },
  );
  if (child.status !== 0) throw new Error(`bus heap child failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as Heap[];
}

export async function runBusBench(): Promise<Row[]> {
  busRate(5_000); // warm up both paths before timing either
  mittRate(5_000);
  const bus: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bus.push(busRate(RATE_EVENTS));
    bare.push(mittRate(RATE_EVENTS));
  }
  const heap = heapRuns(HEAP_RUNS);
  return [
    row(
      "bus: events/s, run subscribers",
      bus,
      median(bare),
      "ev/s",
      "baseline: bare mitt, 4 no-op handlers; ledger + events log + progress",
    ),
    row(
      `bus: heap after ${EVENTS.toLocaleString("en")} events`,
      heap.map((h) => h.afterMb),
      median(heap.map((h) => h.beforeMb)),
      "MB",
      "baseline: heap before, after gc; the growth is the run's VerdictBook, which keeps every verdict (two a story here); nothing else should grow",
    ),
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === "--heap-child") {
    process.stdout.write(JSON.stringify(heapRuns(Number(process.argv[3] ?? 1))));
  } else {
    runBusBench().then(
      (rows) => console.table(rows),
      (error: unknown) => {
        console.error(error);
        process.exitCode = 1;
      },
    );
  }
}
