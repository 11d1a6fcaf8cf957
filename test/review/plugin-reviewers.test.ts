import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { ConfigSchema } from "../../src/config/schema.js";
import { openRepo } from "../../src/git/repo.js";
import { VerdictBook } from "../../src/ledger/book.js";
import type { EventName, EventOf } from "../../src/model/events.js";
import type { PluginReviewer, PluginSet, ReviewInput } from "../../src/plugins/types.js";
import { runReview } from "../../src/review/orchestrator.js";
import type { RunContext, StoryContext } from "../../src/stages/context.js";
import { reviewStage } from "../../src/stages/review.js";
import { silentLogger } from "../../src/util/logger.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-plugin-review-")));
after(() => rmSync(root, { recursive: true, force: true }));
let baseSha = "";

before(() => {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" });
  writeFileSync(join(root, "a.js"), "export const a = 1;\n");
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "t");
  git("add", "-A");
  git("commit", "-q", "-m", "base");
  baseSha = git("rev-parse", "HEAD").trim();
  writeFileSync(join(root, "b.js"), "export const b = 2;\n");
});

type Recorded = { type: EventName; event: EventOf<EventName> };

/** A RunContext with what review uses for real (config, bus, git, signal), the rest left out. */
async function runContext(
  options: { timeoutSeconds?: number; plugins?: PluginSet; signal?: AbortSignal } = {},
) {
  const events: Recorded[] = [];
  const bus = createEventBus({ runId: "run-1" });
  bus.onAny("recorder", (type, event) => {
    events.push({ type, event: event as EventOf<EventName> });
  });
  const config = ConfigSchema.parse({
    quality: {
      commands: { lint: "echo lint ok" },
      timeoutSeconds: options.timeoutSeconds ?? 30,
    },
  });
  const run = {
    runId: "run-1",
    feature: "f",
    root,
    runDir: join(root, ".gantry", "runs", "run-1"),
    config,
    bus,
    git: await openRepo(root),
    verdicts: new VerdictBook("f", randomBytes(32)),
    logger: silentLogger,
    signal: options.signal ?? new AbortController().signal,
    plugins: options.plugins,
  } as unknown as RunContext;
  return { run, events };
}

const reviewer = (name: string, review: (input: ReviewInput) => Promise<unknown>): PluginReviewer =>
  ({ plugin: "acme", name, review }) as PluginReviewer;

describe("plugin reviewers in the review stage", () => {
  it("runs after the built-in checks; passes, findings, throws and hangs all become checks", async () => {
    const { run, events } = await runContext({ timeoutSeconds: 1 });
    let hungSignal: AbortSignal | undefined;
    const reviewers = [
      reviewer("pass", async () => ({ success: true, findings: [] })),
      reviewer("style", async ({ storyId }) => ({
        success: false,
        findings: [`src/a.js:3 ${storyId}: name the constant`, "src/b.js:1 no default export"],
        output: "2 style problems",
      })),
      reviewer("crash", async () => {
        throw new RangeError("ruleset v2 missing");
      }),
      reviewer("hang", (input) => {
        hungSignal = input.signal;
        return new Promise(() => {});
      }),
      reviewer("shape", async () => ({ ok: true })),
    ];
    const started = performance.now();
    const result = await runReview(run, "US-1", 1, { reviewers, changedFiles: ["b.js"] });
    assert.ok(
      performance.now() - started < 15_000,
      "the hanging reviewer is bounded by quality.timeoutSeconds",
    );
    assert.equal(hungSignal?.aborted, true, "the hanging reviewer's signal is aborted on the timeout");

    assert.equal(result.success, false);
    assert.deepEqual(
      result.checks.map((c) => [c.name, c.success]),
      [
        ["lint", true],
        ["plugin:pass", true],
        ["plugin:style", false],
        ["plugin:crash", false],
        ["plugin:hang", false],
        ["plugin:shape", false],
      ],
    );
    const [, passed, style, crash, hang, shape] = result.checks;
    assert.deepEqual(passed, {
      name: "plugin:pass",
      success: true,
      exitCode: null,
      output: "",
      findings: [],
    });
    assert.deepEqual(style?.findings, ["src/a.js:3 US-1: name the constant", "src/b.js:1 no default export"]);
    assert.equal(style?.output, "2 style problems");
    assert.equal(crash?.output, 'plugin "acme" reviewer "crash" threw: RangeError: ruleset v2 missing');
    assert.equal(
      hang?.output,
      'plugin "acme" reviewer "hang" did not settle within 1 s (quality.timeoutSeconds)',
    );
    assert.equal(
      shape?.output,
      'plugin "acme" reviewer "shape" returned success: undefined; expected { success: boolean, findings: string[] }',
    );

    const start = events.find((e) => e.type === "review:start")?.event as EventOf<"review:start">;
    assert.deepEqual(start.checks, [
      "lint",
      "plugin:pass",
      "plugin:style",
      "plugin:crash",
      "plugin:hang",
      "plugin:shape",
    ]);
    const announced = events.find((e) => e.type === "review:result")?.event as EventOf<"review:result">;
    assert.equal(announced.success, false);
    assert.equal(announced.attempt, 1);
    assert.deepEqual(announced.checks, result.checks);
    assert.equal(announced.judged.tree.length, 40);
  });

  it("passes when every plugin reviewer passes, with the story id, root and changed files given to each", async () => {
    const { run } = await runContext();
    const seen: Omit<ReviewInput, "signal">[] = [];
    const result = await runReview(run, "US-2", 2, {
      reviewers: [
        reviewer("records", async ({ signal, ...input }) => {
          seen.push(input);
          return { success: true, findings: ["note: fine"], output: "looked" };
        }),
      ],
      changedFiles: ["b.js"],
    });
    assert.equal(result.success, true);
    assert.deepEqual(seen, [{ root, storyId: "US-2", changedFiles: ["b.js"] }]);
    assert.deepEqual(result.checks[1]?.findings, ["note: fine"]);
  });

  it("does not start plugin reviewers once the run is interrupted", async () => {
    const controller = new AbortController();
    controller.abort();
    const { run } = await runContext({ signal: controller.signal });
    let called = false;
    await runReview(run, "US-3", 1, {
      reviewers: [
        reviewer("never", async () => {
          called = true;
          return { success: true, findings: [] };
        }),
      ],
    });
    assert.equal(called, false);
  });

  it("the review stage hands the run's plugin reviewers the files the story changed", async () => {
    let changed: string[] | undefined;
    const plugins: PluginSet = {
      plugins: [{ name: "acme", module: "./acme.mjs", index: 0 }],
      reviewers: [
        reviewer("files", async (input) => {
          changed = input.changedFiles;
          return { success: false, findings: ["b.js:1 too short"] };
        }),
      ],
      routers: [],
      agents: [],
    };
    const { run, events } = await runContext({ plugins });
    const ctx = { run, story: { id: "US-4" }, pass: 1, baseSha } as unknown as StoryContext;
    const outcome = await reviewStage.execute(ctx);
    assert.deepEqual(outcome, { action: "continue" });
    assert.deepEqual(changed, ["b.js"]);
    assert.deepEqual(
      ctx.review?.checks.map((c) => c.name),
      ["lint", "plugin:files"],
    );
    const announced = events.find((e) => e.type === "review:result")?.event as EventOf<"review:result">;
    assert.deepEqual(announced.checks[1]?.findings, ["b.js:1 too short"]);
  });
});
