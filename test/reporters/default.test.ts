import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import defaultReporter from "../../src/reporters/default.js";
import { progressLine, progressLineIn, stamp } from "../../src/reporters/progress-lines.js";
import { RunModel } from "../../src/reporters/run-model.js";
import type { EventArgs, ReporterContext } from "../../src/reporters/types.js";
import { wireReporters } from "../../src/subscribers/reporters.js";
import { silentLogger } from "../../src/util/logger.js";
import { type Capture, capture, context, emitSampleRun, freshDir, RUN_ID, sampleBus } from "./sample-run.js";

async function run(over: Partial<ReporterContext>) {
  const runDir = join(freshDir("root"), ".gantry", "runs", RUN_ID);
  const ctx = context(runDir, over);
  const { bus, faults, dispose } = sampleBus(freshDir());
  const off = wireReporters(bus, [{ name: "default", reporter: defaultReporter({}, ctx) }], {
    logger: silentLogger,
    warn: () => {},
  });
  emitSampleRun(bus);
  await bus.flush();
  off();
  dispose();
  assert.deepEqual(faults, []);
  return { out: ctx.stdout as Capture, ctx };
}

const ESC = "\u001b";
/** Without escape codes and carriage returns. */
const plain = (line: string) => line.replace(new RegExp(`${ESC}\\[[\\d;]*[A-Za-z]|\\r`, "g"), "");

/** Replays what the reporter wrote on a terminal that knows newline, CR, cursor up and erase-below. */
function screen(text: string): string[] {
  const lines: string[] = [""];
  let row = 0;
  for (const [token, count, code] of text.matchAll(
    new RegExp(`${ESC}\\[(\\d*)([AJm])|\\r|\\n|[^${ESC}\\r\\n]+`, "g"),
  )) {
    if (token === "\n") lines[++row] ??= "";
    else if (token === "\r" || code === "m") continue;
    else if (code === "A") row -= Number(count || 1);
    else if (code === "J") lines.splice(row, lines.length, "");
    else lines[row] = (lines[row] ?? "") + token;
  }
  return lines.slice(0, -1);
}

describe("default reporter", () => {
  it("outside a terminal prints exactly the timestamped progress lines", async () => {
    const { out, ctx } = await run({});
    const { bus, dispose } = sampleBus(freshDir());
    let progress = "";
    const model = new RunModel();
    const off = bus.onAny("progress", (type, event) => {
      const args = [type, event] as EventArgs;
      model.apply(...args);
      const line = progressLineIn(model, ...args);
      if (line !== undefined) progress += `${stamp(ctx.now?.() ?? new Date())}${line}\n`;
    });
    emitSampleRun(bus);
    off();
    dispose();
    assert.equal(out.text, progress);
    const lines = out.text.split("\n").slice(0, -1);
    assert.ok(lines.every((l) => l.startsWith("[05:10:00] ")));
    assert.equal(lines[0], `[05:10:00] run ${RUN_ID}: feature checkout, 3 stories`);
    assert.ok(
      lines.includes(
        '[05:10:00] US-002 start — Apply 10% discount code :: "quoted" <b>&amp;</b>, a | b (tier fast)',
      ),
    );
    assert.ok(lines.includes("[05:10:00] US-001 PASSED in 24.3s (1 agent session, tier fast)"));
    assert.ok(lines.includes("[05:10:00] US-003 BLOCKED: depends on US-002 (failed)"));
    // Each stage by its verdict, then what came next: a verify whose tests failed is a fail, not a "continue".
    assert.ok(lines.includes("[05:10:00] US-002 verify fail → rectify (1.5s)"));
    assert.ok(lines.includes("[05:10:00] US-001 verify pass → review (1.3s)"));
    assert.ok(
      lines.includes("[05:10:00] US-002 rectify retry → verify: rectify attempt 1: 2 tests failing (9.0s)"),
    );
    assert.ok(
      lines.includes(
        "[05:10:00] US-002 rectify fail → escalate: 1 test still failing after 1 rectify attempts (0.0s)",
      ),
    );
    assert.ok(!out.text.includes("→ continue"));
    assert.equal(
      lines.at(-1),
      "[05:10:00] run complete: 1 passed, 1 failed, 1 blocked, 0 skipped, 0 paused in 95.0s, cost $0.33",
    );
  });

  it("reads a stage's verdict from its exit alone too (progressLine, for readers of events.jsonl); the run model adds the gates", () => {
    const { bus, dispose } = sampleBus(freshDir());
    const model = new RunModel();
    const pairs: [string | undefined, string | undefined][] = [];
    const off = bus.onAny("progress", (type, event) => {
      const args = [type, event] as EventArgs;
      model.apply(...args);
      if (type === "stage:exit") pairs.push([progressLine(...args), progressLineIn(model, ...args)]);
    });
    emitSampleRun(bus);
    // An inline regression that fails sends the pass back to rectify: its exit alone reads as a retry.
    bus.emit("stage:enter", { storyId: "US-001", stage: "regression" });
    bus.emit("gate:verdict", {
      v: 1,
      feature: "checkout",
      storyId: "US-001",
      gate: "regression",
      verdict: "fail",
      sha: "",
      tree: "",
      attempt: 1,
      detail: {},
      runId: RUN_ID,
      at: "2026-03-04T05:06:07.000Z",
    });
    bus.emit("stage:exit", {
      storyId: "US-001",
      stage: "regression",
      result: { action: "retry", fromStage: "rectify", reason: "regression TEST_FAILURE (1 failed)" },
      durationMs: 1000,
    });
    off();
    dispose();
    const regression = pairs.pop();
    for (const [alone, withModel] of pairs) assert.equal(alone, withModel);
    assert.ok(pairs.some(([line]) => line === "US-002 verify fail → rectify (1.5s)"));
    assert.deepEqual(regression, [
      "US-001 regression retry → rectify: regression TEST_FAILURE (1 failed) (1.0s)",
      "US-001 regression fail → rectify: regression TEST_FAILURE (1 failed) (1.0s)",
    ]);
  });

  it("prints plain lines in a terminal when CI is set or TERM is dumb", async () => {
    for (const env of [{ CI: "true" }, { CI: "1" }, { TERM: "dumb" }]) {
      const { out } = await run({ stdout: capture(true), env });
      assert.ok(!out.text.includes("\u001b"), `no escape codes with ${JSON.stringify(env)}`);
      assert.match(out.text, /^\[05:10:00\] run /);
    }
  });

  it("in a terminal draws a live view that leaves only the finished stories and the totals on screen", async () => {
    const { out } = await run({ stdout: capture(true) });
    assert.match(out.text, new RegExp(`${ESC}\\[\\d+A\\r${ESC}\\[J`), "redraws in place");
    assert.ok(out.text.includes(`${ESC}[32m✓${ESC}[39m US-001`), "colours");
    // While US-002 ran, the live line showed its stage, elapsed time, cost and tier, one line wide.
    assert.match(
      out.text,
      /US-002 rectify · \dm \d\ds · \$0\.08 · tier fast {2}Apply 10% discount code :: "quoted" <b>&amp;<\/b>, a…\n/,
    );
    const live = out.text.split("\n").filter((l) => l.includes("⠋"));
    assert.ok(live.length > 10);
    for (const line of live) assert.ok([...plain(line)].length <= 99, line);
    assert.match(
      out.text,
      /US-002 verify · \dm \d\ds · \$0\.18 · tier balanced · pass 2 {2}Apply 10% discount/,
    );
    assert.match(out.text, /2\/3 stories · 1 passed · 1 failed · 3m 52s · \$0\.33/);
    const final = screen(out.text).map(plain);
    assert.deepEqual(final, [
      "✓ US-001 Add cart total  24.3s · $0.12 · tier fast · 1 pass",
      "  ↑ US-002 fast → balanced: 1 test still failing after 1 rectify attempts",
      '✗ US-002 Apply 10% discount code :: "quoted" <b>&amp;</b>, a | b  1m 14s · $0.21 · tier balanced · 2 passes',
      "    every tier failed; last: 1 test still failing after 1 rectify attempts",
      "↷ US-003 Show receipt  blocked: depends on US-002 (failed)",
      "",
      "1 passed · 1 failed · 1 blocked · 1m 35s · $0.33",
    ]);
  });

  it("stops redrawing when the run ends and leaves colours off with NO_COLOR", async () => {
    const { out } = await run({ stdout: capture(true), env: { NO_COLOR: "1" } });
    assert.ok(!out.text.includes(`${ESC}[3`) && !out.text.includes(`${ESC}[2m`));
    const length = out.text.length;
    await new Promise((r) => setTimeout(r, 450));
    assert.equal(out.text.length, length);
  });
});
