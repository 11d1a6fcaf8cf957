import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { VerdictBook } from "../../src/ledger/book.js";
import type { EventOf } from "../../src/model/events.js";
import type { LedgerEntry, Verdict } from "../../src/model/ledger.js";
import type { StoryContext } from "../../src/stages/context.js";
import { carryReadiness } from "../../src/stages/readiness-carry.js";

const line = (storyId: string, gate: string, verdict: Verdict, tree: string, detail = {}): LedgerEntry => ({
  v: 1,
  runId: "r1",
  feature: "f",
  storyId,
  gate,
  verdict,
  sha: "s",
  tree,
  at: "2026-01-01T00:00:00.000Z",
  attempt: 1,
  detail,
});

/** A story context with `entries` as the run's verdicts; returns what carryReadiness announced. */
function carry(entries: LedgerEntry[], mandatory = ["verify", "readiness"]) {
  const bus = createEventBus({ runId: "r1" });
  const verdicts = new VerdictBook("f", randomBytes(32));
  for (const entry of entries) verdicts.add(entry);
  const announced: EventOf<"readiness:result">[] = [];
  bus.on("readiness:result", "test", (event) => {
    announced.push(event);
  });
  const ctx = {
    run: { bus, verdicts, mandatoryGates: mandatory },
    story: { id: "US-1" },
    pass: 2,
  } as unknown as StoryContext;
  carryReadiness(ctx, { sha: "head", tree: "merged" });
  return announced;
}

describe("carryReadiness", () => {
  it("carries the story's latest readiness pass onto the tree to commit, naming the tree it was judged on", () => {
    const gaps = [{ code: "criterion-not-checkable", severity: "warning", detail: "it works" }];
    const [event, ...more] = carry([
      line("US-1", "readiness", "fail", "start", { gaps, gapSet: ["x"] }),
      line("US-1", "readiness", "pass", "start", { gaps, accepted: ["no-acceptance-criteria"] }),
      line("US-2", "readiness", "fail", "start"),
    ]);
    assert.equal(more.length, 0);
    assert.equal(event?.verdict, "pass");
    assert.equal(event?.carriedFrom, "start");
    assert.deepEqual(event?.judged, { sha: "head", tree: "merged" });
    assert.deepEqual(event?.gaps, gaps);
    assert.deepEqual(event?.accepted, ["no-acceptance-criteria"]);
    assert.equal(event?.attempt, 2);
    assert.equal(event?.ask, undefined);
  });

  it("keeps the first tree when the pass it carries was itself carried", () => {
    const [event] = carry([line("US-1", "readiness", "pass", "worktree", { carriedFrom: "start" })]);
    assert.equal(event?.carriedFrom, "start");
  });

  it("carries nothing when the latest readiness verdict failed, there is none, it is already on the tree, or readiness is not mandatory", () => {
    assert.deepEqual(
      carry([line("US-1", "readiness", "pass", "start"), line("US-1", "readiness", "fail", "start")]),
      [],
    );
    assert.deepEqual(carry([line("US-2", "readiness", "pass", "start")]), []);
    assert.deepEqual(carry([line("US-1", "readiness", "pass", "merged")]), []);
    assert.deepEqual(carry([line("US-1", "readiness", "pass", "start")], ["verify"]), []);
  });
});
