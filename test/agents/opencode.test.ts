import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createOpencodeAdapter, opencodeSpec, withoutSnapshots } from "../../src/agents/opencode.js";
import { calls, config, installFakes, request, reset } from "./harness.js";
import { adapterSuite } from "./suite.js";

const fakes = installFakes();

describe("opencode adapter", () => {
  adapterSuite(fakes, {
    name: "opencode",
    create: createOpencodeAdapter,
    defaults: {
      fast: "anthropic/claude-haiku-4-5",
      balanced: "anthropic/claude-sonnet-4-5",
      powerful: "anthropic/claude-opus-4-5",
    },
    promptOf: (call) => call.stdin,
  });

  it("builds opencode run with JSON events and the provider/model", async () => {
    reset(fakes);
    const a = createOpencodeAdapter(config());
    await a.run(request(fakes, a));
    assert.deepEqual(calls(fakes)[0]?.argv, [
      "run",
      "--format",
      "json",
      "--model",
      "anthropic/claude-sonnet-4-5",
    ]);
  });

  it("allows a session with an answer file that file's folder, outside the project, and nothing more", async (t) => {
    reset(fakes);
    withOwnConfigContent(t, undefined);
    const a = createOpencodeAdapter(config());
    const critic = {
      ...request(fakes, a),
      role: "critic" as const,
      outputFile: "/tmp/gantry-plan-x/critic.json",
    };
    assert.deepEqual(opencodeSpec.env?.(critic), {
      OPENCODE_CONFIG_CONTENT: '{"snapshot":false}',
      OPENCODE_PERMISSION: '{"external_directory":{"/tmp/gantry-plan-x/**":"allow"}}',
    });
    assert.deepEqual(opencodeSpec.env?.(request(fakes, a)), {
      OPENCODE_CONFIG_CONTENT: '{"snapshot":false}',
    });
  });

  it("turns OpenCode's snapshots off, keeping the user's own runtime config and their snapshot choice", (t) => {
    withOwnConfigContent(t, '{"model":"anthropic/x","share":"disabled"}');
    const a = createOpencodeAdapter(config());
    assert.deepEqual(opencodeSpec.env?.(request(fakes, a)), {
      OPENCODE_CONFIG_CONTENT: '{"model":"anthropic/x","share":"disabled","snapshot":false}',
    });
    assert.deepEqual(withoutSnapshots('{"snapshot":true}'), {}, "their explicit choice stays");
    assert.deepEqual(withoutSnapshots("{ // jsonc\n}"), {}, "what gantry cannot read stays as it is");
    assert.deepEqual(withoutSnapshots("[1]"), {});
    assert.deepEqual(withoutSnapshots("  "), { OPENCODE_CONFIG_CONTENT: '{"snapshot":false}' });
  });

  it("sums tokens and cost over the step_finish events and keeps the last text", async () => {
    reset(fakes);
    const a = createOpencodeAdapter(config());
    const result = await a.run(request(fakes, a));
    assert.equal(result.finalMessage, "Implemented the story.");
    assert.deepEqual(result.tokens, { input: 1000 + 750 + 7000 + 100 + 7960, output: 200 + 50 + 40 });
    assert.equal(result.costBasis, "exact");
    assert.ok(Math.abs(result.costUsd - 0.0325) < 1e-12);
  });

  it("treats a zero cost as no cost: estimated by the model name without its provider, else unknown", async () => {
    reset(fakes, { FAKE_NO_COST: "1" });
    const priced = createOpencodeAdapter(
      config({ agent: { prices: { "claude-sonnet-4-5": { inputPerMTok: 3, outputPerMTok: 15 } } } }),
    );
    const estimated = await priced.run(request(fakes, priced));
    assert.equal(estimated.costBasis, "estimated");
    assert.ok(Math.abs(estimated.costUsd - (16810 * 3 + 290 * 15) / 1e6) < 1e-12);
    const unpriced = createOpencodeAdapter(config());
    assert.equal((await unpriced.run(request(fakes, unpriced))).costBasis, "unknown");
  });

  it("takes the error event's message as the reason", async () => {
    reset(fakes, { FAKE_MODE: "error" });
    const a = createOpencodeAdapter(config());
    const result = await a.run(request(fakes, a));
    assert.match(result.error ?? "", /Bad request: invalid tool schema/);
  });
});

/** Sets the user's OPENCODE_CONFIG_CONTENT for one test (undefined: unset), put back after it. */
function withOwnConfigContent(t: { after(fn: () => void): void }, value: string | undefined): void {
  const before = process.env.OPENCODE_CONFIG_CONTENT;
  const set = (v: string | undefined) => {
    if (v === undefined) delete process.env.OPENCODE_CONFIG_CONTENT;
    else process.env.OPENCODE_CONFIG_CONTENT = v;
  };
  set(value);
  t.after(() => set(before));
}
