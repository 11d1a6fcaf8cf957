import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createClaudeAdapter } from "../../src/agents/claude.js";
import { calls, config, installFakes, request, reset } from "./harness.js";
import { adapterSuite } from "./suite.js";

const fakes = installFakes();

describe("claude adapter", () => {
  adapterSuite(fakes, {
    name: "claude",
    create: createClaudeAdapter,
    defaults: { fast: "haiku", balanced: "sonnet", powerful: "opus" },
    promptOf: (call) => call.stdin,
  });

  it("builds claude -p with JSON output, the model and bypassed permissions", async () => {
    reset(fakes);
    const a = createClaudeAdapter(config());
    await a.run(request(fakes, a));
    assert.deepEqual(calls(fakes)[0]?.argv, [
      "-p",
      "--output-format",
      "json",
      "--model",
      "sonnet",
      "--permission-mode",
      "bypassPermissions",
    ]);
  });

  it("reads the result, tokens (cached input included) and the exact cost", async () => {
    reset(fakes);
    const a = createClaudeAdapter(config());
    const result = await a.run(request(fakes, a));
    assert.equal(result.finalMessage, "Implemented the story; tests pass.");
    assert.deepEqual(result.tokens, { input: 2000, output: 450 });
    assert.equal(result.costUsd, 0.0421);
    assert.equal(result.costBasis, "exact");
  });

  it("estimates from agent.prices when no cost is reported, else unknown", async () => {
    reset(fakes, { FAKE_NO_COST: "1" });
    const priced = createClaudeAdapter(
      config({ agent: { prices: { sonnet: { inputPerMTok: 3, outputPerMTok: 15 } } } }),
    );
    const estimated = await priced.run(request(fakes, priced));
    assert.equal(estimated.costBasis, "estimated");
    assert.ok(Math.abs(estimated.costUsd - (2000 * 3 + 450 * 15) / 1e6) < 1e-12);
    const unpriced = createClaudeAdapter(config());
    const unknown = await unpriced.run(request(fakes, unpriced));
    assert.equal(unknown.costBasis, "unknown");
    assert.equal(unknown.costUsd, 0);
    assert.deepEqual(unknown.tokens, { input: 2000, output: 450 });
  });

  it("says so when the CLI is not on PATH", async () => {
    reset(fakes);
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent-dir";
    try {
      const a = createClaudeAdapter(config());
      const result = await a.run(request(fakes, a));
      assert.match(result.error ?? "", /claude is not on PATH/);
      assert.notEqual(result.rateLimited, true);
    } finally {
      process.env.PATH = path;
    }
  });
});
