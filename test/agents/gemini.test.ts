import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createGeminiAdapter } from "../../src/agents/gemini.js";
import { calls, config, installFakes, request, reset } from "./harness.js";
import { adapterSuite } from "./suite.js";

const fakes = installFakes();

describe("gemini adapter", () => {
  adapterSuite(fakes, {
    name: "gemini",
    create: createGeminiAdapter,
    defaults: { fast: "flash-lite", balanced: "flash", powerful: "pro" },
    promptOf: (call) => call.stdin,
  });

  it("builds gemini with JSON output, the model, the yolo approval mode and the folder trusted for the session", async () => {
    reset(fakes);
    const a = createGeminiAdapter(config());
    await a.run(request(fakes, a));
    assert.deepEqual(calls(fakes)[0]?.argv, [
      "--output-format",
      "json",
      "--model",
      "flash",
      "--approval-mode",
      "yolo",
      "--skip-trust",
    ]);
  });

  it("adds the answer file's folder to the workspace, where its file tools may write", async () => {
    reset(fakes);
    const a = createGeminiAdapter(config());
    await a.run({ ...request(fakes, a), role: "critic", outputFile: "/tmp/gantry-plan-x/critic.json" });
    const argv = calls(fakes)[0]?.argv ?? [];
    assert.deepEqual(argv.slice(-2), ["--include-directories", "/tmp/gantry-plan-x"]);
  });

  it("reads the pretty-printed JSON: response and tokens summed over every model used", async () => {
    reset(fakes);
    const a = createGeminiAdapter(config());
    const result = await a.run(request(fakes, a));
    assert.equal(result.error, undefined);
    assert.equal(result.finalMessage, "I implemented the story.");
    // flash: prompt 20000 + tool 50 in, 1500 candidates + 250 thoughts out; flash-lite: 1000 in, 20 out.
    assert.deepEqual(result.tokens, { input: 21050, output: 1770 });
    assert.equal(result.costBasis, "unknown");
  });

  it("estimates only when every model the session used has a price", async () => {
    reset(fakes);
    const both = createGeminiAdapter(
      config({
        agent: {
          prices: {
            "gemini-2.5-flash": { inputPerMTok: 0.3, outputPerMTok: 2.5 },
            "gemini-2.5-flash-lite": { inputPerMTok: 0.1, outputPerMTok: 0.4 },
          },
        },
      }),
    );
    const estimated = await both.run(request(fakes, both));
    assert.equal(estimated.costBasis, "estimated");
    const expected = (20050 * 0.3 + 1750 * 2.5 + 1000 * 0.1 + 20 * 0.4) / 1e6;
    assert.ok(Math.abs(estimated.costUsd - expected) < 1e-12);
    const one = createGeminiAdapter(
      config({ agent: { prices: { "gemini-2.5-flash": { inputPerMTok: 0.3, outputPerMTok: 2.5 } } } }),
    );
    const partial = await one.run(request(fakes, one));
    assert.equal(partial.costBasis, "unknown");
    assert.equal(partial.costUsd, 0);
  });

  it("takes the JSON error as the reason", async () => {
    reset(fakes, { FAKE_MODE: "error" });
    const a = createGeminiAdapter(config());
    const result = await a.run(request(fakes, a));
    assert.match(result.error ?? "", /ApiError 500 Internal error encountered/);
  });
});
