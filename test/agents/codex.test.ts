import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { codexSpec, createCodexAdapter } from "../../src/agents/codex.js";
import { calls, config, installFakes, request, reset } from "./harness.js";
import { adapterSuite } from "./suite.js";

const fakes = installFakes();

describe("codex adapter", () => {
  adapterSuite(fakes, {
    name: "codex",
    create: createCodexAdapter,
    defaults: { fast: "gpt-6-luna", balanced: "gpt-6.2-sol", powerful: "gpt-6.2-astra" },
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
      "gpt-6.2-sol",
      "--sandbox",
      "workspace-write",
      "-",
    ]);
  });

  it("inside gantry's sandbox, turns Codex's own off (it cannot nest there)", async () => {
    reset(fakes);
    const a = createCodexAdapter(config());
    await a.run(request(fakes, a, { sandbox: ["env", "--"] }));
    assert.deepEqual(calls(fakes)[0]?.argv.slice(4, 6), ["--sandbox", "danger-full-access"]);
  });

  it("says a failed turn's error once, not once per event that repeats it", () => {
    const said = [
      '{"type":"error","message":"unexpected status 401 Unauthorized: bad key"}',
      '{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: bad key"}}',
    ].join("\n");
    assert.equal(codexSpec.parse(said).error, "unexpected status 401 Unauthorized: bad key");
  });

  it("a command its own sandbox could not start is a setup problem, though Codex exits 0", () => {
    const said = [
      '{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"cat a","aggregated_output":"bwrap: setting up uid map: Operation not permitted\\n","exit_code":1,"status":"failed"}}',
      '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"done"}}',
      '{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":2}}',
    ].join("\n");
    const parsed = codexSpec.parse(said);
    assert.match(
      parsed.setupProblem ?? "",
      /Codex's own sandbox could not run a command \(bwrap: setting up uid map/,
    );
    assert.equal(parsed.error, parsed.setupProblem);
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
      config({ agent: { prices: { "gpt-6.2-sol": { inputPerMTok: 1.25, outputPerMTok: 10 } } } }),
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
