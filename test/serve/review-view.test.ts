import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { redacted } from "../../src/serve/devices/routes.js";
import { DECISIONS_KEPT } from "../../src/serve/review-view.js";
import { RunWatcher } from "../../src/serve/run-view.js";
import { fakeRun, INJECTED, panelDecision, RUN_ID } from "./fake-run.js";

describe("a run's view of the review panel's decisions (from events.jsonl)", () => {
  it("gives each finding its reviewers, place, severity as raised and as decided, text and basis", () => {
    const run = fakeRun();
    run.append(panelDecision());
    const watcher = new RunWatcher(run.root, RUN_ID);
    watcher.refresh();
    const view = watcher.view();
    const [review, ...more] = view.stories[0]?.reviews ?? [];
    const device = JSON.stringify(redacted(view));
    assert.ok(!/discount|injected|corroborated/.test(device), `a device reads no finding: ${device}`);
    assert.equal(more.length, 0);
    assert.deepEqual(
      [review?.verdict, review?.attempt, review?.tree, review?.missing],
      ["fail", 1, "c".repeat(40), []],
    );
    assert.deepEqual(review?.findings, [
      {
        reviewers: ["a", "b"],
        file: "src/cart.ts",
        line: 10,
        raisedAs: "blocking",
        severity: "blocking",
        text: "total ignores the discount",
        basis: "corroborated by a and b",
        kind: "blocker",
      },
      {
        reviewers: ["a"],
        file: "src/ui.ts",
        line: 4,
        raisedAs: "blocking",
        severity: "important",
        text: INJECTED,
        basis: "lowered: raised by 1 reviewer (a), two needed; no failing test",
        kind: "lowered",
      },
      {
        reviewers: ["b"],
        file: "src/ui.ts",
        line: 9,
        raisedAs: "suggestion",
        severity: "suggestion",
        text: "rename it",
        basis: "raised as suggestion; kept as raised",
        kind: "other",
      },
    ]);
  });

  it("reads a malformed decision without failing, names a reviewer with no answer, and keeps a bounded number", () => {
    const run = fakeRun();
    run.append({
      type: "review-decision:result",
      storyId: "US-1",
      verdict: "fail",
      reason: "no valid answer from b (not JSON)",
      blockers: "not a list",
      reviewers: [{ reviewer: "b", ok: false, problem: "not JSON" }, null],
      attempt: 1,
    });
    for (let n = 2; n <= DECISIONS_KEPT + 3; n++) run.append({ ...panelDecision(), attempt: n });
    const watcher = new RunWatcher(run.root, RUN_ID);
    watcher.refresh();
    const reviews = watcher.view().stories[0]?.reviews ?? [];
    assert.equal(reviews.length, DECISIONS_KEPT);
    assert.equal(reviews[0]?.attempt, 4, "the oldest decisions go first");
    const only = new RunWatcher(fakeRun().root, RUN_ID);
    const bad = fakeRun();
    bad.append({
      type: "review-decision:result",
      storyId: "US-1",
      verdict: "fail",
      reason: "r",
      blockers: "not a list",
      reviewers: [{ reviewer: "b", ok: false, problem: "not JSON" }, null],
      attempt: 1,
    });
    const watcherBad = new RunWatcher(bad.root, RUN_ID);
    watcherBad.refresh();
    only.refresh();
    assert.deepEqual(watcherBad.view().stories[0]?.reviews, [
      {
        attempt: 1,
        verdict: "fail",
        tree: "",
        reason: "r",
        findings: [],
        missing: [{ reviewer: "b", problem: "not JSON" }],
      },
    ]);
    assert.equal(only.view().stories[0]?.reviews, undefined);

    const long = fakeRun();
    const decision = panelDecision();
    long.append({ ...decision, blockers: [{ ...decision.blockers[0], text: "x".repeat(5000) }] });
    const watcherLong = new RunWatcher(long.root, RUN_ID);
    watcherLong.refresh();
    const text = watcherLong.view().stories[0]?.reviews?.[0]?.findings[0]?.text ?? "";
    assert.equal(
      text,
      `${"x".repeat(1000)}…`,
      "a long text is clipped on the page (the run's files keep it)",
    );
  });
});

describe("a run's view from an events.jsonl with malformed lines", () => {
  it("skips an event missing what its type carries, and keeps folding the lines after it", () => {
    const run = fakeRun();
    run.append({ type: "story:complete" });
    run.append({ type: "story:fail", story: null });
    run.append({ type: "gate:verdict" });
    run.append({ type: "stage:enter", storyId: "US-2", stage: "review" });
    const watcher = new RunWatcher(run.root, RUN_ID);
    assert.doesNotThrow(() => watcher.refresh());
    const us2 = watcher.view().stories.find((s) => s.id === "US-2");
    assert.equal(us2?.stage, "review");
  });
});
