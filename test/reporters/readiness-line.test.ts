import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EventOf } from "../../src/model/events.js";
import { progressLine } from "../../src/reporters/progress-lines.js";

const event = (over: Partial<EventOf<"readiness:result">>): EventOf<"readiness:result"> => ({
  runId: "r",
  at: "2026-01-01T00:00:00.000Z",
  storyId: "US-1",
  verdict: "pass",
  gaps: [],
  accepted: [],
  gapSet: [],
  judged: { sha: "a", tree: "b" },
  attempt: 0,
  ...over,
});

describe("the readiness progress line", () => {
  it("shows a story's gaps, warnings marked, and the codes accepted; nothing for a story without gaps", () => {
    assert.equal(progressLine("readiness:result", event({})), undefined);
    const gaps = [
      { code: "no-acceptance-criteria" as const, severity: "blocker" as const, detail: "none" },
      { code: "description-empty" as const, severity: "warning" as const, detail: "none" },
    ];
    assert.equal(
      progressLine("readiness:result", event({ verdict: "fail", gaps })),
      "US-1 readiness fail: no-acceptance-criteria, description-empty (warning)",
    );
    assert.equal(
      progressLine("readiness:result", event({ gaps, accepted: ["no-acceptance-criteria"] })),
      "US-1 readiness pass: no-acceptance-criteria, description-empty (warning); accepted: no-acceptance-criteria",
    );
  });
});
