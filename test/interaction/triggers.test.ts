import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { type ConfigInput, ConfigSchema, type InteractionAction } from "../../src/config/schema.js";
import type { EventOf } from "../../src/model/events.js";
import type { RunControl } from "../../src/model/run-control.js";
import { runStages } from "../../src/pipeline/runner.js";
import { type Story, StorySchema } from "../../src/prd/story.js";
import type { StoryContext } from "../../src/stages/context.js";
import type { Stage } from "../../src/stages/stage.js";
import { wireInteraction } from "../../src/subscribers/interaction.js";
import { silentLogger } from "../../src/util/logger.js";

const summary = (id: string) => ({ id, title: `Story ${id}`, status: "in-progress" as const, attempts: 0 });

/** A real bus with the interaction subscriber on it; RunControl records what it is told. */
function wired(
  config: ConfigInput,
  stories: Record<string, Partial<Story>> = {},
  stdin?: PassThrough,
  signal = new AbortController().signal,
) {
  const bus = createEventBus({ runId: "run-1" });
  const decisions: [string | undefined, string, InteractionAction][] = [];
  const raises: number[] = [];
  const control: RunControl = {
    vetoStory: () => {},
    requestPause: () => {},
    decide: (storyId, trigger, action) => decisions.push([storyId, trigger, action]),
    raiseCostLimit: (usd) => {
      raises.push(usd);
      return usd;
    },
    signal,
  };
  const requests: EventOf<"interaction:request">[] = [];
  const responses: EventOf<"interaction:response">[] = [];
  bus.on("interaction:request", "test", (e) => {
    requests.push(e);
  });
  bus.on("interaction:response", "test", (e) => {
    responses.push(e);
  });
  const warnings: string[] = [];
  const dispose = wireInteraction(bus, {
    config: ConfigSchema.parse(config),
    control,
    runDir: mkdtempSync(join(tmpdir(), "gantry-triggers-")),
    feature: "checkout",
    stories: {
      get: (id) =>
        StorySchema.parse({ id, title: `Story ${id}`, acceptanceCriteria: ["works"], ...stories[id] }),
    },
    logger: silentLogger,
    warn: (l) => warnings.push(l),
    ...(stdin ? { stdin, stderr: new PassThrough() } : {}),
  });
  return { bus, decisions, raises, requests, responses, warnings, dispose };
}

const triggers = (t: Record<string, object>): ConfigInput => ({ interaction: { triggers: t } });

describe("interaction triggers on a real bus", () => {
  it("nothing is asked when no trigger is enabled (or one is configured with enabled: false)", async () => {
    for (const config of [{}, triggers({ "story-ambiguity": { enabled: false } })]) {
      const { bus, requests, decisions } = wired(config, { "US-1": { acceptanceCriteria: [] } });
      bus.emit("story:start", { story: summary("US-1"), tier: "fast" });
      bus.emit("escalation:exhausted", { storyId: "US-1", attempts: 3 });
      bus.emit("run:cost-check", { costUsd: 100, limitUsd: 1 });
      await bus.flush();
      assert.deepEqual([requests, decisions], [[], []]);
    }
  });

  it("story-ambiguity asks only for a story without acceptance criteria; auto answers its fallback", async () => {
    const { bus, requests, responses, decisions } = wired(triggers({ "story-ambiguity": {} }), {
      "US-1": { acceptanceCriteria: [] },
      "US-2": { acceptanceCriteria: ["  "] },
    });
    for (const id of ["US-1", "US-2", "US-3"]) bus.emit("story:start", { story: summary(id), tier: "fast" });
    await bus.flush();
    assert.deepEqual(
      requests.map((r) => [r.storyId, r.trigger, r.options, r.fallback, r.timeoutMs]),
      [
        ["US-1", "story-ambiguity", ["approve", "skip", "abort"], "skip", 300_000],
        ["US-2", "story-ambiguity", ["approve", "skip", "abort"], "skip", 300_000],
      ],
    );
    assert.deepEqual(
      responses.map((r) => [r.id, r.action, r.respondedBy]),
      requests.map((r) => [r.id, "skip", "auto"]),
    );
    assert.deepEqual(decisions, [
      ["US-1", "story-ambiguity", "skip"],
      ["US-2", "story-ambiguity", "skip"],
    ]);
  });

  it("human-review offers retry once per story; then a retry fallback falls back to the default (skip)", async () => {
    const { bus, requests, decisions } = wired(triggers({ "human-review": { fallback: "retry" } }));
    bus.emit("escalation:exhausted", { storyId: "US-1", attempts: 3 });
    await bus.flush();
    bus.emit("escalation:exhausted", { storyId: "US-1", attempts: 6 });
    bus.emit("escalation:exhausted", { storyId: "US-2", attempts: 3 });
    await bus.flush();
    assert.deepEqual(
      requests.map((r) => [r.storyId, r.options.join(","), r.fallback]),
      [
        ["US-1", "approve,skip,retry,abort", "retry"],
        ["US-1", "approve,skip,abort", "skip"],
        ["US-2", "approve,skip,retry,abort", "retry"],
      ],
    );
    assert.deepEqual(
      decisions.map((d) => d[2]),
      ["retry", "skip", "retry"],
    );
  });

  it("max-retries asks on the stage:exit the runner marks as the retry limit, never on a plain retry", async () => {
    const { bus, requests, decisions } = wired({
      execution: { maxStageRetries: 2 },
      interaction: { triggers: { "max-retries": { fallback: "skip" } } },
    });
    const retry = (storyId: string, retryLimit?: { max: number }) =>
      bus.emit("stage:exit", {
        storyId,
        stage: "rectify",
        result: { action: "retry", fromStage: "verify", reason: "tests still fail" },
        durationMs: 1,
        ...(retryLimit ? { retryLimit } : {}),
      });
    retry("US-1");
    retry("US-1");
    retry("US-1");
    await bus.flush();
    assert.equal(requests.length, 0, "retries the runner did not mark as the limit");
    retry("US-1", { max: 2 });
    await bus.flush();
    assert.equal(requests.length, 1);
    assert.match(
      requests[0]?.summary ?? "",
      /MAX_STAGE_RETRIES \(2\) exceeded; last from rectify: tests still fail/,
    );
    bus.emit("stage:exit", {
      storyId: "US-2",
      stage: "autofix",
      result: { action: "fail", reason: "no retry left", retryLimit: true },
      durationMs: 1,
      retryLimit: { max: 2 },
    });
    await bus.flush();
    assert.deepEqual(decisions, [
      ["US-1", "max-retries", "skip"],
      ["US-2", "max-retries", "skip"],
    ]);
  });

  it("max-retries and the real runner agree on the retry that ends the pass", async () => {
    for (const maxStageRetries of [0, 3]) {
      const { bus, requests } = wired({
        execution: { maxStageRetries },
        interaction: { triggers: { "max-retries": {} } },
      });
      const stages: Stage[] = [
        { name: "routing", enabled: () => true, execute: async () => ({ action: "continue" }) },
        {
          name: "verify",
          enabled: () => true,
          execute: async () => ({ action: "retry", fromStage: "routing", reason: "again" }),
        },
      ];
      bus.emit("story:start", { story: summary("US-1"), tier: "fast" });
      const ctx = { story: { id: "US-1" } } as StoryContext;
      const outcome = await runStages(stages, ctx, { bus, maxStageRetries });
      await bus.flush();
      assert.equal(outcome.action, "fail");
      assert.equal(outcome.action === "fail" && outcome.retryLimit, true);
      assert.equal(
        requests.length,
        1,
        `one question when the pass ends (maxStageRetries ${maxStageRetries})`,
      );
    }
  });

  it("review-gate asks on a failed review once a pass, never on a passing one", async () => {
    const { bus, requests } = wired(triggers({ "review-gate": {} }));
    const review = (success: boolean, attempt: number) =>
      bus.emit("review:result", {
        storyId: "US-1",
        success,
        checks: [{ name: "lint", success, exitCode: success ? 0 : 1, output: "", findings: [] }],
        judged: { sha: "a", tree: "b" },
        attempt,
      });
    review(true, 1);
    review(false, 1);
    review(false, 1);
    review(false, 2);
    await bus.flush();
    assert.deepEqual(
      requests.map((r) => [r.summary, r.fallback]),
      [
        ["US-1: review failed (lint)", "approve"],
        ["US-1: review failed (lint)", "approve"],
      ],
    );
  });

  it("test-integrity asks once per set of findings, never on a pass; its fallback is retry and never approve", async () => {
    const { bus, requests, decisions } = wired(triggers({ "test-integrity": {} }));
    const deleted = { kind: "test-deleted" as const, file: "test/a.test.js", evidence: "deleted" };
    const skipped = {
      kind: "marker-added" as const,
      file: "test/b.test.js",
      line: 3,
      evidence: "new it.skip",
    };
    const verdict = (verdict: "pass" | "fail", findings: (typeof deleted | typeof skipped)[]) =>
      bus.emit("test-integrity:result", {
        storyId: "US-1",
        verdict,
        findings,
        allowed: [],
        judged: { sha: "a", tree: "b" },
        attempt: 1,
      });
    verdict("pass", []);
    verdict("fail", [deleted]);
    verdict("fail", [deleted]);
    verdict("fail", [skipped, deleted]);
    await bus.flush();
    assert.deepEqual(
      requests.map((r) => [r.summary, r.options, r.fallback]),
      [
        [
          "US-1 changed its tests: test/a.test.js test-deleted. approve allows exactly these; retry leaves them to rectify",
          ["approve", "retry", "skip", "abort"],
          "retry",
        ],
        [
          "US-1 changed its tests: test/b.test.js:3 marker-added; test/a.test.js test-deleted. approve allows exactly these; retry leaves them to rectify",
          ["approve", "retry", "skip", "abort"],
          "retry",
        ],
      ],
    );
    assert.deepEqual(decisions, [
      ["US-1", "test-integrity", "retry"],
      ["US-1", "test-integrity", "retry"],
    ]);
    assert.throws(
      () => ConfigSchema.parse(triggers({ "test-integrity": { fallback: "approve" } })),
      /test-integrity/,
    );
  });

  it("cost-warning is a notice, once, from 80% of the limit; nothing is decided", async () => {
    const { bus, requests, responses, decisions } = wired(triggers({ "cost-warning": {} }));
    for (const costUsd of [10, 23.9, 24, 26, 29]) bus.emit("run:cost-check", { costUsd, limitUsd: 30 });
    bus.emit("run:cost-check", { costUsd: 5, limitUsd: 0 });
    await bus.flush();
    assert.deepEqual(
      requests.map((r) => [r.options, r.fallback]),
      [[["approve"], "approve"]],
    );
    assert.match(requests[0]?.summary ?? "", /\$24\.00 is over 80% of the limit \$30\.00/);
    assert.deepEqual(
      responses.map((r) => [r.action, r.respondedBy]),
      [["approve", "notice"]],
    );
    assert.deepEqual(decisions, []);
  });

  it("cost-exceeded pauses the run (abort); approve is offered only with raiseUsd and raises the limit", async () => {
    const plain = wired(triggers({ "cost-exceeded": {} }));
    plain.bus.emit("run:cost-check", { costUsd: 29, limitUsd: 30 });
    plain.bus.emit("run:cost-check", { costUsd: 30, limitUsd: 30 });
    await plain.bus.flush();
    assert.deepEqual(
      plain.requests.map((r) => r.options),
      [["abort"]],
    );
    assert.deepEqual(plain.decisions, [[undefined, "cost-exceeded", "abort"]]);

    const unattended = wired(triggers({ "cost-exceeded": { raiseUsd: 5 } }));
    unattended.bus.emit("run:cost-check", { costUsd: 31, limitUsd: 30 });
    await unattended.bus.flush();
    assert.deepEqual(unattended.requests[0]?.options, ["abort", "approve"]);
    assert.deepEqual(
      [unattended.decisions, unattended.raises],
      [[[undefined, "cost-exceeded", "abort"]], []],
    );

    // A person at the terminal approves: the limit goes up by raiseUsd and nothing pauses.
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const person = wired(
      { interaction: { channel: "cli", triggers: { "cost-exceeded": { raiseUsd: 5 } } } },
      {},
      stdin,
    );
    person.bus.emit("run:cost-check", { costUsd: 31, limitUsd: 30 });
    setTimeout(() => stdin.write("approve\n"), 20);
    await person.bus.flush();
    person.dispose();
    assert.deepEqual([person.decisions, person.raises], [[], [5]]);
    assert.deepEqual(
      person.responses.map((r) => [r.action, r.respondedBy]),
      [["approve", "cli"]],
    );
  });

  it("Ctrl-C while waiting: the question ends at once and nothing is decided", async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const interrupt = new AbortController();
    const { bus, decisions, responses } = wired(
      { interaction: { channel: "cli", triggers: { "human-review": { timeoutSeconds: 60 } } } },
      {},
      stdin,
      interrupt.signal,
    );
    bus.emit("escalation:exhausted", { storyId: "US-1", attempts: 3 });
    setTimeout(() => interrupt.abort(), 30);
    const started = Date.now();
    await bus.flush();
    assert.ok(Date.now() - started < 5_000);
    assert.deepEqual(
      responses.map((r) => [r.action, r.respondedBy]),
      [["skip", "interrupted"]],
    );
    assert.deepEqual(decisions, []);
  });
});
