import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { claudeSpec, createClaudeAdapter } from "../../src/agents/claude.js";
import { createCliAdapter } from "../../src/agents/cli-adapter.js";
import { calls, config, installFakes, request, reset } from "./harness.js";
import { adapterSuite } from "./suite.js";

const fakes = installFakes();

/** The claude adapter with `sh -c script` in place of the CLI: a real process that says what Claude Code says. */
const claudePlayedBy = (script: string) =>
  createCliAdapter({ ...claudeSpec, bin: "sh", args: () => ["-c", `cat >/dev/null; ${script}`] }, config());

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

  it("counts every model of the session from modelUsage (side calls included), not the main loop's usage", () => {
    const parsed = claudeSpec.parse(
      JSON.stringify({
        type: "result",
        subtype: "success",
        result: "done",
        usage: { input_tokens: 400, cache_read_input_tokens: 80, output_tokens: 40 },
        modelUsage: {
          "claude-sonnet-5-5": { inputTokens: 400, cacheReadInputTokens: 80, outputTokens: 40 },
          "claude-haiku-4-5": { inputTokens: 150, cacheCreationInputTokens: 10, outputTokens: 12 },
        },
        total_cost_usd: 0.0012,
      }),
    );
    assert.deepEqual(parsed.usage, [
      { model: "claude-sonnet-5-5", input: 480, output: 40 },
      { model: "claude-haiku-4-5", input: 160, output: 12 },
    ]);
  });

  it("tells Claude Code it is sandboxed only when gantry's sandbox is on", () => {
    const a = createClaudeAdapter(config());
    assert.deepEqual(claudeSpec.env?.(request(fakes, a, { sandbox: ["bwrap", "--"] })), { IS_SANDBOX: "1" });
    assert.deepEqual(claudeSpec.env?.(request(fakes, a)), {});
  });

  it("a refusal on stderr with no JSON: the error carries its words and the run pauses instead of escalating", async () => {
    const refusing = claudePlayedBy(
      "echo '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons' >&2; exit 1",
    );
    const result = await refusing.run(request(fakes, refusing));
    assert.equal(
      result.error,
      "claude exited with code 1: --dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons",
    );
    assert.match(
      result.setupProblem ?? "",
      /^Claude Code refuses to skip permissions as root outside a sandbox: set agent\.sandbox/,
    );
    assert.equal(result.rateLimited, undefined);
  });

  it("a 401 in its JSON result is an authentication problem that names what to do", async () => {
    const said = {
      type: "result",
      is_error: true,
      api_error_status: 401,
      result: "Invalid API key · Please run /login",
    };
    const rejected = claudePlayedBy(`echo '${JSON.stringify(said)}'; exit 1`);
    const result = await rejected.run(request(fakes, rejected));
    assert.match(
      result.setupProblem ?? "",
      /^claude could not authenticate \(Invalid API key · Please run \/login\): run `claude auth login`/,
    );
  });
});
