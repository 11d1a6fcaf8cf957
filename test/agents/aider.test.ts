import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createAiderAdapter, parseAiderOutput } from "../../src/agents/aider.js";
import { calls, config, installFakes, request, reset } from "./harness.js";
import { adapterSuite } from "./suite.js";

const fakes = installFakes();

describe("aider adapter", () => {
  adapterSuite(fakes, {
    name: "aider",
    create: createAiderAdapter,
    defaults: { fast: "haiku", balanced: "sonnet", powerful: "opus" },
    promptOf: (call) => call.message,
  });

  it("builds aider with the prompt file, the model, no commits and no prompts", async () => {
    reset(fakes);
    const a = createAiderAdapter(config());
    const req = request(fakes, a);
    await a.run(req);
    const call = calls(fakes)[0];
    assert.deepEqual(call?.argv, [
      "--message-file",
      req.promptFile,
      "--model",
      "sonnet",
      "--yes-always",
      "--no-auto-commits",
      "--no-dirty-commits",
      "--no-gitignore",
      "--no-pretty",
      "--no-stream",
      "--no-check-update",
      "--no-show-model-warnings",
      "--no-suggest-shell-commands",
      "--analytics-disable",
    ]);
    assert.equal(call?.stdin, "", "aider gets nothing on stdin");
  });

  it("sums the token reports and takes the session cost of the last one", async () => {
    reset(fakes);
    const a = createAiderAdapter(config());
    const result = await a.run(request(fakes, a));
    assert.deepEqual(result.tokens, { input: 15000, output: 2050 });
    assert.equal(result.costUsd, 0.0463);
    assert.equal(result.costBasis, "exact");
    assert.equal(
      result.finalMessage,
      "The cart now sums its lines; test/cart.test.js covers it.\nApplied edit to test/cart.test.js",
    );
  });

  it("estimates when aider knows no price for the model", async () => {
    reset(fakes, { FAKE_NO_COST: "1" });
    const a = createAiderAdapter(
      config({ agent: { prices: { sonnet: { inputPerMTok: 3, outputPerMTok: 15 } } } }),
    );
    const result = await a.run(request(fakes, a));
    assert.equal(result.costBasis, "estimated");
    assert.ok(Math.abs(result.costUsd - (15000 * 3 + 2050 * 15) / 1e6) < 1e-12);
  });

  it("treats a rate limit aider gave up on as a failed session even though it exited 0", async () => {
    reset(fakes, { FAKE_MODE: "ratelimit" });
    const a = createAiderAdapter(config());
    const result = await a.run(request(fakes, a));
    assert.equal(result.exitCode, 0);
    assert.match(result.error ?? "", /^aider reported an error: litellm\.RateLimitError/);
    assert.equal(result.rateLimited, true);
  });

  it("reads token counts as aider formats them", () => {
    const parsed = parseAiderOutput(
      "Tokens: 1.2M sent, 2.5k cache write, 1.1k cache hit, 999 received. Cost: $1.50 message, $2.25 session.\n",
    );
    assert.deepEqual(parsed.usage, [{ input: 1_200_000, output: 999 }]);
    assert.equal(parsed.costUsd, 2.25);
  });
});
