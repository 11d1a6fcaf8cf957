import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { markerContract, readMarker } from "../../src/agents/completion-marker.js";
import { buildPlanPrompt } from "../../src/agents/plan-prompt.js";
import { buildPrompt } from "../../src/agents/prompt.js";
import { buildResearchPrompt } from "../../src/agents/research-prompt.js";
import { AGENT_ROLES } from "../../src/model/agent.js";
import { COMPLETION_MARKERS, MARKER_NAMES, markersFor } from "../../src/model/markers.js";
import { StorySchema } from "../../src/prd/story.js";

const story = StorySchema.parse({
  id: "US-1",
  title: "Cart total",
  acceptanceCriteria: ["total() returns 0"],
});

/** The markers a contract text offers, read back from the text the agent is given. */
const offered = (contract: string) => [...contract.matchAll(/^- `## ([A-Z ]+)`/gm)].map((m) => m[1]);

describe("completion markers", () => {
  it("the table holds exactly the markers of design section 12", () => {
    assert.deepEqual(MARKER_NAMES, [
      "STORY COMPLETE",
      "STORY BLOCKED",
      "CHECKPOINT REACHED",
      "PLANNING COMPLETE",
      "RESEARCH COMPLETE",
      "RESEARCH BLOCKED",
    ]);
  });

  it("every role's prompt ends with the contract generated from the table, and the parser reads each marker it offers", () => {
    const prompts: Record<string, string> = {
      implement: buildPrompt({ role: "implement", story, feature: "f" }),
      rectify: buildPrompt({ role: "rectify", story, feature: "f", failures: [] }),
      autofix: buildPrompt({ role: "autofix", story, feature: "f", findings: [] }),
      research: buildResearchPrompt({ story, feature: "f", gaps: [], outputFile: "/tmp/x.json" }),
      plan: buildPlanPrompt({
        feature: "f",
        spec: "# f",
        digest: { files: [], moreFiles: 0, manifests: [], tests: [] },
        existing: [],
        outputFile: "/tmp/x.json",
        errors: ["an error"],
      }),
    };
    for (const role of AGENT_ROLES) {
      const contract = markerContract(role);
      assert.deepEqual(
        offered(contract),
        markersFor(role),
        `${role}: the contract offers the table's markers`,
      );
      const prompt = prompts[role];
      if (prompt !== undefined)
        assert.ok(prompt.trimEnd().endsWith(contract.trimEnd()), `${role}'s prompt ends with it`);
      for (const marker of markersFor(role)) {
        const output = `Some work.\n\n## ${marker}\n${COMPLETION_MARKERS[marker].reason ? "Because X.\n" : ""}`;
        assert.equal(readMarker(role, output).marker, marker, `${role} reads ${marker}`);
      }
    }
    const covered = new Set(AGENT_ROLES.flatMap((role) => markersFor(role)));
    assert.deepEqual([...covered].sort(), [...MARKER_NAMES].sort(), "every marker belongs to a role");
  });

  it("reads only the last H2 heading at the start of a line, for the session's role", () => {
    assert.deepEqual(readMarker("implement", "done"), { marker: "none" });
    assert.deepEqual(readMarker("implement", "## STORY COMPLETE\nthen\n## Notes\nmore"), { marker: "none" });
    assert.deepEqual(readMarker("implement", "  ## STORY COMPLETE"), { marker: "none" }, "not at the start");
    assert.deepEqual(readMarker("implement", "### STORY COMPLETE"), { marker: "none" }, "not H2");
    assert.deepEqual(readMarker("implement", "## STORY COMPLETED"), { marker: "none" });
    assert.deepEqual(readMarker("research", "## STORY COMPLETE"), { marker: "none" }, "another role's");
    assert.deepEqual(readMarker("rectify", "## CHECKPOINT REACHED"), { marker: "none" }, "implement only");
    assert.deepEqual(readMarker("implement", "## CHECKPOINT REACHED\n## STORY COMPLETE  \n"), {
      marker: "STORY COMPLETE",
    });
    // The contract's own lines (as an agent echoing its prompt would print them) are no marker.
    assert.deepEqual(readMarker("implement", markerContract("implement")), { marker: "none" });
  });

  it("takes a blocked marker's reason from the same line or the lines below, whitespace folded", () => {
    assert.deepEqual(readMarker("implement", "## STORY BLOCKED: no API key for the\n  payment sandbox\n"), {
      marker: "STORY BLOCKED",
      reason: "no API key for the payment sandbox",
    });
    assert.deepEqual(readMarker("research", "## RESEARCH BLOCKED\n\nNothing in the repo says.\n"), {
      marker: "RESEARCH BLOCKED",
      reason: "Nothing in the repo says.",
    });
    assert.equal(readMarker("implement", "## STORY BLOCKED").reason, "(the agent gave no reason)");
    assert.equal(readMarker("implement", `## STORY BLOCKED\n${"x ".repeat(5000)}`).reason?.length, 2000);
  });
});
