import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createCodexAdapter } from "../../src/agents/codex.js";
import { calls, config, installFakes, request, reset } from "./harness.js";
import { adapterSuite } from "./suite.js";

const fakes = installFakes();

describe("codex adapter", () => {
  adapterSuite(fakes, {
    name: "codex",
    create: createCodexAdapter,
    defaults: { fast: "gpt-5.4-mini", balanced: "gpt-5.4", powerful: "gpt-5.5" },
    promptOf: (call) => call.stdin,
  });

  it("builds codex exec --json with the model, a workspace-write sandbox and the prompt from stdin", async () => {
    reset(fakes);
    const a = createCodexAdapter(config());
    await a.run(request(fakes, a));
    assert.deepEqual(calls(fakes)[0]?.argv, [
      "exec",
      "--json",
      "--model",
      "gpt-5.4",
      "--sandbox",
      "workspace-write",
      "-",
    ]);
  });

  it("reads the last agent message and turn usage; no reported cost is unknown without a price", async () => {
    reset(fakes);
    const a = createCodexAdapter(config());
    const result = await a.run(request(fakes, a));
    assert.equal(result.error, undefined);
    assert.equal(result.finalMessage, "Done. I implemented the story and added tests.");
    assert.deepEqual(result.tokens, { input: 24763, output: 1122 });
    assert.equal(result.costBasis, "unknown");
    assert.equal(result.costUsd, 0);
  });

  it("estimates the cost from agent.prices", async () => {
    reset(fakes);
    const a = createCodexAdapter(
      config({ agent: { prices: { "gpt-5.4": { inputPerMTok: 1.25, outputPerMTok: 10 } } } }),
    );
    const result = await a.run(request(fakes, a));
    assert.equal(result.costBasis, "estimated");
    assert.ok(Math.abs(result.costUsd - (24763 * 1.25 + 1122 * 10) / 1e6) < 1e-12);
  });

  it("takes the failed turn's message as the reason", async () => {
    reset(fakes, { FAKE_MODE: "error" });
    const a = createCodexAdapter(config());
    const result = await a.run(request(fakes, a));
    assert.match(result.error ?? "", /model response stream ended unexpectedly/);
  });
});
