import assert from "node:assert/strict";
import { it } from "node:test";
import type { AgentAdapter } from "../../src/agents/adapter.js";
import type { Config, ConfigInput } from "../../src/config/schema.js";
import type { EventOf } from "../../src/model/events.js";
import { runAgentSession } from "../../src/stages/agent-session.js";
import {
  assertNoneLeft,
  bigPrompt,
  type Call,
  calls,
  config,
  type Fakes,
  request,
  reset,
  sessionHarness,
} from "./harness.js";

export interface SuiteOptions {
  name: string;
  create: (config: Config) => AgentAdapter;
  defaults: { fast: string; balanced: string; powerful: string };
  /** Where the fake saw the prompt: standard input, or aider's message file. */
  promptOf: (call: Call) => string | undefined;
}

/** What every named adapter must do, the same way: prompt, models, environment, errors, kill, rate limits. */
export function adapterSuite(fakes: Fakes, o: SuiteOptions): void {
  const adapter = (input: ConfigInput = {}) => o.create(config(input));

  it("gives the prompt whole, never in argv, also at 200 KB", async () => {
    for (const prompt of ["short prompt with 'quotes' and $VARS\n", bigPrompt(200 * 1024)]) {
      reset(fakes);
      const a = adapter();
      const result = await a.run(request(fakes, a, { prompt }));
      assert.equal(result.error, undefined, result.output);
      const [call] = calls(fakes);
      assert.ok(call);
      assert.equal(o.promptOf(call), prompt);
      assert.ok(call.argv.join(" ").length < 1000, "the prompt went into argv");
    }
  });

  it("passes the model for each tier: its defaults, a configured one, balanced for other tiers", async () => {
    const configured = { agent: { models: { [o.name]: { fast: "my-fast-model" } } } };
    const cases: [ConfigInput, string, string][] = [
      [{}, "fast", o.defaults.fast],
      [{}, "balanced", o.defaults.balanced],
      [{}, "powerful", o.defaults.powerful],
      [{}, "custom-tier", o.defaults.balanced],
      [configured, "fast", "my-fast-model"],
      [configured, "powerful", o.defaults.powerful],
    ];
    for (const [input, tier, model] of cases) {
      reset(fakes);
      const a = adapter(input);
      assert.equal(a.modelFor(tier), model);
      await a.run(request(fakes, a, { tier }));
      const argv = calls(fakes)[0]?.argv ?? [];
      assert.equal(argv[argv.indexOf("--model") + 1], model, `tier ${tier}`);
    }
  });

  it("runs in the repository root with the GANTRY_* variables", async () => {
    reset(fakes);
    const a = adapter();
    const req = request(fakes, a, { role: "rectify", attempt: 3, tier: "powerful" });
    await a.run(req);
    const call = calls(fakes)[0];
    assert.equal(call?.cwd, fakes.repo);
    assert.deepEqual(call?.env, {
      GANTRY_STORY_ID: "US-001",
      GANTRY_ROLE: "rectify",
      GANTRY_ATTEMPT: "3",
      GANTRY_TIER: "powerful",
      GANTRY_MODEL: o.defaults.powerful,
      GANTRY_PROMPT_FILE: req.promptFile,
      GANTRY_FEATURE: "checkout",
      GANTRY_RUN_ID: "run-1",
      GANTRY_SESSION_ID: "run-1/US-001/1",
    });
  });

  it("reports a failed session as an agent error, not a rate limit", async () => {
    reset(fakes, { FAKE_MODE: "error" });
    const a = adapter();
    const result = await a.run(request(fakes, a));
    assert.equal(result.exitCode, 1);
    assert.match(result.error ?? "", new RegExp(`^${o.name} exited with code 1`));
    assert.notEqual(result.rateLimited, true);
  });

  it("recognises a rate-limit failure", async () => {
    reset(fakes, { FAKE_MODE: "ratelimit" });
    const a = adapter();
    const result = await a.run(request(fakes, a));
    assert.ok(result.error, "a rate-limited session is an error");
    assert.equal(result.rateLimited, true);
  });

  it("kills the CLI and its children at the timeout; none is left", async () => {
    reset(fakes, { FAKE_MODE: "hang" });
    const a = adapter();
    const started = performance.now();
    const result = await a.run(request(fakes, a, { timeoutMs: 700 }));
    assert.equal(result.timedOut, true);
    assert.match(result.error ?? "", /did not finish within/);
    assert.notEqual(result.rateLimited, true);
    assert.ok(performance.now() - started < 6000, "took too long to kill");
    await assertNoneLeft(fakes.bin);
  });

  it("stops when the run is interrupted (request.signal)", async () => {
    reset(fakes, { FAKE_MODE: "hang" });
    const a = adapter();
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const result = await a.run(request(fakes, a, { signal: abort.signal }));
    assert.equal(result.aborted, true);
    await assertNoneLeft(fakes.bin);
  });

  it("retries a rate-limited session with backoff without using up the story's attempts", async () => {
    reset(fakes, { FAKE_RATE_LIMIT_CALLS: "2" });
    const cfg = config({ agent: { rateLimit: { retries: 3, baseDelayMs: 20 } } });
    const h = sessionHarness(fakes, o.create(cfg), cfg);
    const outcome = await runAgentSession(h.ctx, "implement", "the prompt\n");
    assert.equal(outcome.kind, "done");
    assert.equal(calls(fakes).length, 3, "two rate-limited calls, then the one that worked");
    assert.equal(h.ctx.agentCalls, 1, "retries are not attempts");
    assert.equal(h.events.filter((e) => e.type === "agent:start").length, 3);
    const ends = h.events.filter((e) => e.type === "agent:end");
    assert.equal(ends.length, 3, "every try's cost is announced");
    const last = ends.at(-1)?.event as EventOf<"agent:end"> | undefined;
    assert.ok(last?.tokens && last.tokens.input > 0, "agent:end carries the tokens");
    assert.equal(h.run.cost.sessions, 3);
    assert.equal(new Set(calls(fakes).map((c) => c.env.GANTRY_ATTEMPT)).size, 1);
  });

  it("gives up after agent.rateLimit.retries and says so", async () => {
    reset(fakes, { FAKE_MODE: "ratelimit" });
    const cfg = config({ agent: { rateLimit: { retries: 1, baseDelayMs: 10 } } });
    const h = sessionHarness(fakes, o.create(cfg), cfg);
    const outcome = await runAgentSession(h.ctx, "implement", "the prompt\n");
    assert.equal(outcome.kind, "error");
    assert.match(outcome.kind === "error" ? outcome.reason : "", /^rate limited \(tried 2 times\)/);
    assert.equal(calls(fakes).length, 2);
    assert.equal(h.ctx.agentCalls, 1);
  });

  it("stops waiting out a rate limit when the run is interrupted", async () => {
    reset(fakes, { FAKE_MODE: "ratelimit" });
    const cfg = config({ agent: { rateLimit: { retries: 3, baseDelayMs: 60_000 } } });
    const h = sessionHarness(fakes, o.create(cfg), cfg);
    const started = performance.now();
    const pending = runAgentSession(h.ctx, "implement", "the prompt\n");
    setTimeout(() => h.abort.abort(), 1500);
    const outcome = await pending;
    assert.deepEqual(outcome, { kind: "paused", reason: "interrupted" });
    assert.ok(performance.now() - started < 10_000);
    assert.equal(calls(fakes).length, 1);
  });

  it("finds the completion marker in the CLI's final output, not in an earlier message", async () => {
    const cases: [string | undefined, string, string | undefined][] = [
      ["Done with the work.\n\n## STORY COMPLETE\n", "STORY COMPLETE", undefined],
      [
        "I stopped.\n\n## STORY BLOCKED\nThe spec does not say which currency to use.\n",
        "STORY BLOCKED",
        "The spec does not say which currency to use.",
      ],
      // The fake's earlier message ends with CHECKPOINT REACHED: only the final one counts.
      ["All finished, nothing to add.", "none", undefined],
    ];
    for (const [final, marker, reason] of cases) {
      reset(fakes, final === undefined ? {} : { FAKE_FINAL: final });
      const cfg = config();
      const h = sessionHarness(fakes, o.create(cfg), cfg);
      const outcome = await runAgentSession(h.ctx, "implement", "the prompt\n");
      assert.equal(outcome.kind, "done", JSON.stringify(outcome));
      assert.equal(outcome.kind === "done" ? outcome.marker.marker : "", marker, `${o.name}: ${final}`);
      assert.equal(outcome.kind === "done" ? outcome.marker.reason : "", reason);
      const end = h.events.find((e) => e.type === "agent:end")?.event as EventOf<"agent:end"> | undefined;
      assert.equal(end?.marker, marker, "agent:end records the marker");
    }
  });
}
