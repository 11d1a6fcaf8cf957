import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AgentAdapter } from "../../../src/agents/adapter.js";
import { ConfigSchema } from "../../../src/config/schema.js";
import { panelReviewers } from "../../../src/review/panel/dispatch.js";

const fake = (name: string): AgentAdapter => ({
  name,
  modelFor: (tier) => `${name}-${tier}-model`,
  run: () => Promise.reject(new Error("not run here")),
});

describe("the panel's reviewers", () => {
  it("are named and sourced from review.panel: same agent and model is one source, names made unique", () => {
    const config = ConfigSchema.parse({
      review: {
        panel: [
          { agent: "claude", model: "opus" },
          { agent: "claude", model: "opus" },
          { agent: "codex" },
          { command: "node review.mjs" },
          { name: "house", command: "node review.mjs" },
        ],
      },
    });
    const made: string[] = [];
    const reviewers = panelReviewers(
      config.review.panel,
      config,
      (name) => {
        made.push(name);
        return fake(name);
      },
      "balanced",
    );
    assert.deepEqual(
      reviewers.map((r) => [r.name, r.source, r.model]),
      [
        ["claude-opus", "agent:claude:opus", "opus"],
        ["claude-opus-2", "agent:claude:opus", "opus"],
        ["codex-codex-balanced-model", "agent:codex:codex-balanced-model", "codex-balanced-model"],
        ["reviewer-4", "command:node review.mjs", "review"],
        ["house", "command:node review.mjs", "review"],
      ],
    );
    assert.deepEqual(made, ["claude", "claude", "codex"]);
    assert.equal(reviewers[3]?.adapter.name, "command");
  });

  it("reject a reviewer that is neither an agent nor a command, and an unknown key", () => {
    assert.equal(ConfigSchema.safeParse({ review: { panel: [{ name: "x" }] } }).success, false);
    assert.equal(
      ConfigSchema.safeParse({ review: { panel: [{ command: "x", agent: "y" }] } }).success,
      false,
    );
  });
});
