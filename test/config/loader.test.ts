import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InputError, InputErrors } from "../../src/config/input-error.js";
import { loadConfig, parseConfig } from "../../src/config/loader.js";
import { mandatoryGates } from "../../src/config/schema.js";

function projectWith(config: string): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-config-"));
  mkdirSync(join(root, ".gantry"));
  writeFileSync(join(root, ".gantry", "config.json"), config);
  return root;
}

describe("config loading", () => {
  it("fills defaults when there is no config file", () => {
    const config = loadConfig(mkdtempSync(join(tmpdir(), "gantry-config-")));
    assert.equal(config.execution.maxStageRetries, 5);
    assert.equal(config.execution.regression.mode, "deferred");
    assert.deepEqual(config.routing.tiers, ["fast", "balanced", "powerful"]);
    assert.deepEqual(mandatoryGates(config), ["verify", "review", "test-integrity"]);
  });

  it("adds regression to the mandatory gates when it runs inline, and CLI overrides win", () => {
    const config = loadConfig(projectWith('{"execution": {"regression": {"mode": "deferred"}}}'), {
      regressionMode: "inline",
    });
    assert.deepEqual(mandatoryGates(config), ["verify", "review", "test-integrity", "regression"]);
  });

  it("rejects unknown keys naming the path", () => {
    assert.throws(
      () => parseConfig("c.json", { execution: { rectify: { enabled: true, maxAttempt: 2 } } }),
      (e: unknown) =>
        e instanceof InputError &&
        e.message === 'c.json: execution.rectify: unknown key "maxAttempt"; did you mean "maxAttempts"?',
    );
  });

  it("names every problem at once, each with its place", () => {
    assert.throws(
      () =>
        parseConfig("c.json", {
          execution: { rectify: { maxAttempt: 2 } },
          verify: { testStrenght: true, maxScopedFiles: 0 },
          zzz: 1,
        }),
      (e: unknown) =>
        e instanceof InputErrors &&
        e.all.map((one) => one.message).join("\n") ===
          [
            'c.json: execution.rectify: unknown key "maxAttempt"; did you mean "maxAttempts"?',
            "c.json: verify.maxScopedFiles: Too small: expected number to be >0",
            'c.json: verify: unknown key "testStrenght"; did you mean "testStrength"?',
            'c.json: (top level): unknown key "zzz"; expected one of $schema, agent, quality, execution, verify, routing, gates, hooks, reporters, plugins, interaction, readiness, review, plan',
          ].join("\n"),
    );
  });

  it("routing: attempts per tier default to 1, escalation starts from the current tree; tierAttempts names real tiers", () => {
    const config = loadConfig(mkdtempSync(join(tmpdir(), "gantry-config-")));
    assert.equal(config.routing.attemptsPerTier, 1);
    assert.deepEqual(config.routing.tierAttempts, {});
    assert.equal(config.routing.escalationStart, "current-tree");
    assert.throws(
      () => parseConfig("c.json", { routing: { tierAttempts: { balnced: 2 } } }),
      /c\.json: routing\.tierAttempts\.balnced: "balnced" is not one of routing\.tiers \(fast, balanced, powerful\)/,
    );
  });

  it("rejects a gate name outside the closed set, naming its place (a typo would fail every story)", () => {
    assert.throws(
      () => parseConfig("c.json", { gates: { mandatory: ["verify", "verfy"] } }),
      (e: unknown) =>
        e instanceof InputError &&
        /c\.json: gates\.mandatory\[1\]: Invalid option: expected one of "verify"/.test(e.message),
    );
  });

  it("rejects an unknown hook event naming the valid ones", () => {
    assert.throws(
      () => parseConfig("c.json", { hooks: { "on-finish": "x" } }),
      /valid hook events: on-start, on-story-start/,
    );
  });

  it("reports a truncated file with its line and column", () => {
    assert.throws(
      () => loadConfig(projectWith('{\n  "agent": {\n')),
      /config\.json: line 3, column 1: not valid JSON/,
    );
  });
});
