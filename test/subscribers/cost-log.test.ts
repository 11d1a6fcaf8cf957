import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import type { CostBasis } from "../../src/model/agent.js";
import { COST_FILE, summarizeCostLog, totalCostBasis, wireCostLog } from "../../src/subscribers/cost-log.js";

const work = mkdtempSync(join(tmpdir(), "gantry-cost-"));
after(() => rmSync(work, { recursive: true, force: true }));

const end = (costUsd: number, costBasis: CostBasis, tokens?: { input: number; output: number }) => ({
  storyId: "US-001",
  role: "implement" as const,
  agent: "claude",
  model: "sonnet",
  tier: "balanced",
  exitCode: 0,
  durationMs: 1234,
  costUsd,
  costBasis,
  ...(tokens ? { tokens } : {}),
});

describe("cost log", () => {
  it("writes every agent:end to cost.jsonl and sums it back", () => {
    const runDir = mkdtempSync(join(work, "run-"));
    const bus = createEventBus({ runId: "run-1", now: () => new Date("2026-01-02T03:04:05.000Z") });
    const dispose = wireCostLog(bus, { runDir });
    bus.emit("agent:end", end(0.5, "exact", { input: 1000, output: 200 }));
    bus.emit("agent:end", end(0.25, "estimated", { input: 10, output: 5 }));
    bus.emit("agent:start", {
      storyId: "US-001",
      role: "implement",
      agent: "claude",
      model: "sonnet",
      tier: "balanced",
    });
    dispose();
    const lines = readFileSync(join(runDir, COST_FILE), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(lines[0], {
      at: "2026-01-02T03:04:05.000Z",
      story: "US-001",
      role: "implement",
      agent: "claude",
      model: "sonnet",
      tier: "balanced",
      tokens: { input: 1000, output: 200 },
      costUsd: 0.5,
      basis: "exact",
      exitCode: 0,
      durationMs: 1234,
    });
    assert.equal(lines.length, 2);
    appendFileSync(join(runDir, COST_FILE), '{"torn":');
    assert.deepEqual(summarizeCostLog(runDir), {
      usd: 0.75,
      sessions: 2,
      byBasis: { exact: 1, estimated: 1, unknown: 0 },
      basis: "partial",
      tokens: { input: 1010, output: 205 },
    });
  });

  it("a run without sessions costs exactly nothing", () => {
    assert.equal(summarizeCostLog(join(work, "no-such-run")).basis, "exact");
  });

  it("says how much of a total is known", () => {
    const basis = (exact: number, estimated: number, unknown: number) =>
      totalCostBasis({ exact, estimated, unknown });
    assert.equal(basis(3, 0, 0), "exact");
    assert.equal(basis(0, 2, 0), "estimated");
    assert.equal(basis(0, 0, 2), "unknown");
    assert.equal(basis(1, 1, 0), "partial");
    assert.equal(basis(1, 0, 1), "partial");
    assert.equal(basis(0, 1, 1), "partial");
  });
});
