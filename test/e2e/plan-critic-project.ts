/**
 * A project for `gantry plan`'s critic, played by the scripted command agent: rules, a spec, and one agent
 * told apart by GANTRY_ROLE (the critic writes its objections, the planner its stories or its reply).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentSession, baseConfig, makeProject } from "./harness.js";

export const RULES =
  "# Rules\n\n- R-1 binding: every public function has a test\n- R-2 proposed: stories stay small\n";
export const SPEC =
  "# cart\n\n## Goal\n\nShoppers see their cart's total.\n\n## Constraints\n\nPrices are integers in cents.\n";
export const CART_JS = "export const total = (cart) => cart.reduce((a, b) => a + b, 0);\n";
export const CART_TEST =
  'import { test } from "node:test";\n\ntest("total of an empty cart is 0", () => {});\n';
export const US1 = {
  id: "US-1",
  title: "Cart total",
  acceptanceCriteria: ["total() of an empty cart returns 0"],
};
export const US2 = {
  id: "US-2",
  title: "Test total",
  acceptanceCriteria: ["node --test test/cart.test.js exits 0"],
};
/** The critic's binding objection, anchored on a real line and a proposed story. */
export const BINDING = {
  id: "OBJ-1",
  lens: "feasibility",
  claim: "US-1 ships total() without a test",
  rule: "R-1",
  anchors: [
    { kind: "file", path: "src/cart.js", line: 1, quote: "export const total = (cart)" },
    { kind: "story", story: "US-1" },
  ],
};
export const ADVISORY = {
  id: "OBJ-1",
  lens: "alternative",
  claim: "a reduce would read better",
  anchors: [{ kind: "spec", heading: "Goal" }],
};

export interface Script {
  objections: unknown[];
  reply?: unknown;
  config?: Record<string, unknown>;
  /** The critic also tries to write in the tree (the sandbox binds it read-only). */
  hostile?: boolean;
  /** The implement sessions of US-1, for a run after the plan. */
  implement?: AgentSession[];
}

/**
 * A project with rules, a spec and one scripted agent told apart by GANTRY_ROLE: the critic writes its
 * objections; the planner answers its prompt as a planner would, with the reply when the prompt is the
 * critique's, else with the stories. Every session's role and tier goes to a log in /tmp.
 */
export function project(script: Script): { root: string; log: string; prd: string; feature: string } {
  const dir = mkdtempSync(join(tmpdir(), "gantry-critic-"));
  const log = join(dir, "sessions.log");
  writeFileSync(join(dir, "plan.json"), JSON.stringify({ userStories: [US1] }));
  writeFileSync(join(dir, "reply.json"), JSON.stringify(script.reply ?? { replies: [] }));
  writeFileSync(join(dir, "critique.json"), JSON.stringify({ objections: script.objections }));
  const answer = [
    `echo "$GANTRY_ROLE $GANTRY_TIER" >> ${log}`,
    'case "$GANTRY_ROLE" in',
    `  critic) ${script.hostile ? "echo x > src/evil.js 2>/dev/null; " : ""}cat ${dir}/critique.json ;;`,
    `  *) if grep -q '^# Plan: answer the critique' "$GANTRY_PROMPT_FILE"; then cat ${dir}/reply.json; else cat ${dir}/plan.json; fi ;;`,
    'esac > "$GANTRY_OUTPUT_FILE"',
  ].join("\n");
  const root = makeProject({
    stories: [{ id: "X", title: "x", acceptanceCriteria: ["x() returns 1"] }],
    plan: {
      plan: [{ sh: answer, print: "## PLANNING COMPLETE\n" }],
      ...(script.implement ? { "US-1": script.implement } : {}),
    },
    config: { ...baseConfig(), ...script.config },
    files: {
      ".gantry/rules.md": RULES,
      ".gantry/features/cart/spec.md": SPEC,
      "src/cart.js": CART_JS,
      "test/cart.test.js": CART_TEST,
    },
  });
  return { root, log, feature: "cart", prd: join(root, ".gantry/features/cart/prd.json") };
}
