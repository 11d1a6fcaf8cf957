import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EventOf } from "../../src/model/events.js";
import { progressLine } from "../../src/reporters/progress-lines.js";

const check = (over: Partial<EventOf<"story-check:result">["checks"][number]>) => ({
  name: "build" as const,
  command: "npm run build",
  success: true,
  exitCode: 0,
  timedOut: false,
  durationMs: 5,
  output: "",
  ...over,
});

describe("the between-stories check's progress line", () => {
  it("says when it ran and how each check ended, with the first line a failed one printed", () => {
    const event = (phase: "entry" | "exit", checks: ReturnType<typeof check>[]) =>
      ({
        runId: "r",
        at: "2026-01-01T00:00:00.000Z",
        storyId: "US-1",
        phase,
        verdict: checks.every((c) => c.success) ? "pass" : "fail",
        checks,
        judged: { sha: "a", tree: "b" },
        attempt: 1,
      }) as EventOf<"story-check:result">;
    assert.equal(
      progressLine("story-check:result", event("entry", [check({})])),
      "US-1 story-check before the story: build ok",
    );
    assert.equal(
      progressLine(
        "story-check:result",
        event("exit", [
          check({}),
          check({
            name: "smoke",
            success: false,
            exitCode: 0,
            expect: "ready",
            matched: false,
            output: "\n  Error: port 3000 in use\nat x\n",
          }),
        ]),
      ),
      'US-1 story-check on the tree to commit: build ok, smoke failed (never printed /ready/; printed "Error: port 3000 in use")',
    );
  });
});
