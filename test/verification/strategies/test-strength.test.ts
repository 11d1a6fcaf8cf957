import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createEventBus } from "../../../src/bus/event-bus.js";
import { type ConfigInput, ConfigSchema } from "../../../src/config/schema.js";
import { openRepo } from "../../../src/git/repo.js";
import { VerdictBook } from "../../../src/ledger/book.js";
import type { EventOf } from "../../../src/model/events.js";
import type { LedgerEntry } from "../../../src/model/ledger.js";
import type { Story } from "../../../src/prd/story.js";
import type { RunContext, StoryContext } from "../../../src/stages/context.js";
import { verifyStage } from "../../../src/stages/verify.js";
import { wireLedger } from "../../../src/subscribers/ledger.js";
import { silentLogger } from "../../../src/util/logger.js";
import { runTestStrength } from "../../../src/verification/strategies/test-strength.js";
import { git, write } from "../../support/fixture-repo.js";

// This file runs under node's test runner, which sets NODE_TEST_CONTEXT for its children; a `node --test`
// started by the gate would inherit it and report to this runner instead of running its files.
delete process.env.NODE_TEST_CONTEXT;

const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-strength-test-")));
after(() => rmSync(work, { recursive: true, force: true }));

const SCOPED = "node --test --test-reporter=spec {{files}}";

const BASE_MATH = "export function add(a, b) {\n  return a + b;\n}\n";
const STORY_MATH = `${BASE_MATH}\nexport function square(x) {\n  return x * x;\n}\n`;
const BASE_TEST = `import assert from "node:assert/strict";
import { test } from "node:test";
import { add } from "../src/math.js";

test("add", () => assert.equal(add(2, 3), 5));
`;

let repos = 0;
/** A fresh repository with src/math.js and a passing test, committed as the story's base. */
function baseRepo(): { root: string; base: string } {
  const root = join(work, `repo-${++repos}`);
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.name", "Test");
  git(root, "config", "user.email", "test@example.com");
  write(root, "package.json", '{ "type": "module" }\n');
  write(root, "src/math.js", BASE_MATH);
  write(root, "test/math.test.js", BASE_TEST);
  write(root, ".git/info/exclude", ".gantry/runs/\n");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  return { root, base: git(root, "rev-parse", "HEAD") };
}

interface Harness {
  ctx: StoryContext;
  events: EventOf<"test-strength:result">[];
  ledger: () => LedgerEntry[];
  abort: AbortController;
}

let runs = 0;
async function harness(root: string, base: string, config: ConfigInput = {}): Promise<Harness> {
  const runId = `r${++runs}`;
  const runDir = join(root, ".gantry", "runs", runId);
  mkdirSync(runDir, { recursive: true });
  const bus = createEventBus({ runId });
  const events: EventOf<"test-strength:result">[] = [];
  bus.on("test-strength:result", "test", (event) => {
    events.push(event);
  });
  const verdicts = new VerdictBook("math", randomBytes(32));
  wireLedger(bus, { runDir });
  const abort = new AbortController();
  const run = {
    runId,
    feature: "math",
    root,
    runDir,
    config: ConfigSchema.parse({
      quality: { commands: { test: "node --test --test-reporter=spec", testScoped: SCOPED } },
      ...config,
    }),
    verdicts,
    mandatoryGates: ["verify"],
    bus,
    git: await openRepo(root),
    signal: abort.signal,
  } as unknown as RunContext;
  const ctx: StoryContext = {
    run,
    story: { id: "US-1", title: "square" } as Story,
    logger: silentLogger,
    tier: "fast",
    pass: 1,
    baseSha: base,
    failureHistory: [],
    rectifyAttempts: 0,
    autofixAttempts: 0,
    agentCalls: 0,
    costUsd: 0,
  };
  const ledger = () =>
    readFileSync(join(runDir, "ledger.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LedgerEntry);
  return { ctx, events, ledger, abort };
}

/** What the gate must leave as it found it: HEAD, index, working tree, and no worktree but the main one. */
function snapshot(root: string) {
  return {
    head: git(root, "rev-parse", "HEAD"),
    status: git(root, "status", "--porcelain=v1", "--untracked-files=all"),
    index: git(root, "ls-files", "--stage"),
    src: readFileSync(join(root, "src/math.js"), "utf8"),
  };
}

function assertUndisturbed(root: string, before: ReturnType<typeof snapshot>): void {
  assert.deepEqual(snapshot(root), before);
  const worktrees = git(root, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree "));
  assert.deepEqual(worktrees, [`worktree ${root}`]);
}

describe("test-strength gate", () => {
  it("passes a test that fails as a test without the change (namespace import of a new function)", async () => {
    const { root, base } = baseRepo();
    write(root, "src/math.js", STORY_MATH);
    git(root, "add", "src/math.js"); // staged, so the gate must leave a non-trivial index alone
    write(
      root,
      "test/square.test.js",
      `import assert from "node:assert/strict";
import { test } from "node:test";
import * as math from "../src/math.js";

test("square", () => assert.equal(math.square(4), 16));
`,
    );
    const { ctx, events, ledger } = await harness(root, base);
    const before = snapshot(root);
    const judgedBefore = await ctx.run.git.judge();

    const result = await runTestStrength(ctx);

    assert.equal(result.verdict, "pass", JSON.stringify(result));
    assert.deepEqual(
      result.files.map((f) => [f.file, f.outcome, f.status]),
      [["test/square.test.js", "exercises-change", "TEST_FAILURE"]],
    );
    assertUndisturbed(root, before);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]?.judged, judgedBefore);
    const [entry] = ledger();
    assert.equal(entry?.gate, "test-strength");
    assert.equal(entry?.verdict, "pass");
    assert.equal(entry?.tree, judgedBefore.tree);
    assert.equal(entry?.storyId, "US-1");
    assert.deepEqual(entry?.detail.files, result.files);
  });

  it("is unverified when the test cannot load without the change (named import of a new export)", async () => {
    const { root, base } = baseRepo();
    write(root, "src/math.js", STORY_MATH);
    write(
      root,
      "test/square.test.js",
      `import assert from "node:assert/strict";
import { test } from "node:test";
import { square } from "../src/math.js";

test("square", () => assert.equal(square(4), 16));
`,
    );
    const { ctx, ledger } = await harness(root, base);
    const before = snapshot(root);

    const result = await runTestStrength(ctx);

    assert.equal(result.verdict, "unverified", JSON.stringify(result));
    assert.equal(result.files[0]?.outcome, "cannot-load");
    assert.equal(result.files[0]?.status, "BUILD_ERROR");
    assert.match(result.files[0]?.reason ?? "", /does not provide an export named 'square'/);
    assertUndisturbed(root, before);
    assert.equal(ledger()[0]?.verdict, "unverified");
  });

  it("fails a test that passes without the change, naming it, even next to a strong one", async () => {
    const { root, base } = baseRepo();
    write(root, "src/math.js", STORY_MATH);
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "story, committed");
    write(
      root,
      "test/unrelated.test.js",
      `import assert from "node:assert/strict";
import { test } from "node:test";

test("arithmetic", () => assert.equal(1 + 1, 2));
`,
    );
    write(
      root,
      "test/square.test.js",
      `import assert from "node:assert/strict";
import { test } from "node:test";
import * as math from "../src/math.js";

test("square", () => assert.equal(math.square(3), 9));
`,
    );
    const { ctx, ledger } = await harness(root, base);
    const before = snapshot(root);

    const result = await runTestStrength(ctx);

    assert.equal(result.verdict, "fail");
    assert.deepEqual(
      result.files.map((f) => [f.file, f.outcome]),
      [
        ["test/square.test.js", "exercises-change"],
        ["test/unrelated.test.js", "passes-without-change"],
      ],
    );
    assert.match(result.reason ?? "", /test\/unrelated\.test\.js/);
    assertUndisturbed(root, before);
    const entry = ledger()[0];
    assert.equal(entry?.verdict, "fail");
    assert.match(JSON.stringify(entry?.detail), /test\/unrelated\.test\.js.*passes-without-change/);
  });

  it("is not-applicable when no test changed, when only tests changed, and without testScoped", async () => {
    const { root, base } = baseRepo();
    write(root, "src/math.js", STORY_MATH);
    const before = snapshot(root);
    const noTests = await harness(root, base);
    const result = await runTestStrength(noTests.ctx);
    assert.equal(result.verdict, "not-applicable");
    assert.match(result.reason ?? "", /no test file/);
    assert.equal(noTests.ledger()[0]?.verdict, "not-applicable");
    assertUndisturbed(root, before);

    const other = baseRepo();
    write(other.root, "test/more.test.js", 'import { test } from "node:test";\ntest("x", () => {});\n');
    const onlyTests = await runTestStrength((await harness(other.root, other.base)).ctx);
    assert.equal(onlyTests.verdict, "not-applicable");
    assert.match(onlyTests.reason ?? "", /only test code/);

    write(root, "test/square.test.js", 'import { test } from "node:test";\ntest("x", () => {});\n');
    const unscoped = await harness(root, base, { quality: { commands: { test: "node --test" } } });
    const noCommand = await runTestStrength(unscoped.ctx);
    assert.equal(noCommand.verdict, "not-applicable");
    assert.match(noCommand.reason ?? "", /testScoped/);
  });

  it("removes the worktree after a timeout and says unverified", async () => {
    const { root, base } = baseRepo();
    write(root, "src/math.js", STORY_MATH);
    write(
      root,
      "test/slow.test.js",
      'import { test } from "node:test";\ntest("slow", () => new Promise((done) => setTimeout(done, 60_000)));\n',
    );
    const { ctx } = await harness(root, base, {
      quality: { commands: { testScoped: SCOPED }, timeoutSeconds: 1 },
    });
    const before = snapshot(root);
    const result = await runTestStrength(ctx);
    assert.equal(result.verdict, "unverified");
    assert.deepEqual(
      result.files.map((f) => [f.outcome, f.status]),
      [["unverified", "TIMEOUT"]],
    );
    assertUndisturbed(root, before);
  });

  it("does not start when the run is already interrupted", async () => {
    const { root, base } = baseRepo();
    write(root, "src/math.js", STORY_MATH);
    write(root, "test/square.test.js", BASE_TEST);
    const { ctx, abort } = await harness(root, base);
    abort.abort();
    const result = await runTestStrength(ctx);
    assert.equal(result.verdict, "unverified");
    assert.equal(result.files[0]?.status, "NOT_RUN");
    assert.equal(result.files[0]?.reason, "interrupted");
  });

  it("finds installed dependencies, and workspace packages at their base version", async () => {
    const { root } = baseRepo();
    write(root, ".gitignore", "node_modules/\n");
    write(root, "packages/lib/package.json", '{ "name": "@ws/lib", "type": "module", "main": "index.js" }\n');
    write(root, "packages/lib/index.js", "export const version = 1;\n");
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "workspace");
    const base = git(root, "rev-parse", "HEAD");
    write(root, "node_modules/dep/package.json", '{ "name": "dep", "type": "module", "main": "index.js" }\n');
    write(root, "node_modules/dep/index.js", "export const answer = 42;\n");
    mkdirSync(join(root, "node_modules/@ws"));
    symlinkSync("../../packages/lib", join(root, "node_modules/@ws/lib"));
    // The story: the workspace package gains an export, and a test checks it through the package name.
    write(root, "packages/lib/index.js", "export const version = 2;\n");
    write(
      root,
      "test/lib.test.js",
      `import assert from "node:assert/strict";
import { test } from "node:test";
import { answer } from "dep";
import * as lib from "@ws/lib";

test("lib", () => assert.deepEqual([answer, lib.version], [42, 2]));
`,
    );
    const { ctx } = await harness(root, base);
    const before = snapshot(root);

    const result = await runTestStrength(ctx);

    assert.equal(result.verdict, "pass", JSON.stringify(result));
    assert.equal(result.files[0]?.outcome, "exercises-change");
    assertUndisturbed(root, before);
    assert.equal(
      readFileSync(join(root, "node_modules/dep/index.js"), "utf8"),
      "export const answer = 42;\n",
    );
    assert.ok(lstatSync(join(root, "node_modules/@ws/lib")).isSymbolicLink());
    assert.equal(
      readFileSync(join(root, "node_modules/@ws/lib/index.js"), "utf8"),
      "export const version = 2;\n",
    );
  });

  it("in the verify stage: a weak test sends the story to rectify with the test named", async () => {
    const { root, base } = baseRepo();
    write(root, "src/math.js", STORY_MATH);
    write(
      root,
      "test/unrelated.test.js",
      'import assert from "node:assert/strict";\nimport { test } from "node:test";\ntest("x", () => assert.ok(true));\n',
    );
    const off = await harness(root, base);
    assert.equal((await verifyStage.execute(off.ctx)).action, "continue");
    assert.equal(off.ctx.verify, undefined, "with testStrength off, the passing verify stands");
    assert.deepEqual(
      off.ledger().map((e) => e.gate),
      ["verify", "test-integrity"],
    );

    const on = await harness(root, base, {
      quality: { commands: { test: "node --test --test-reporter=spec", testScoped: SCOPED } },
      verify: { testStrength: true },
    });
    assert.equal((await verifyStage.execute(on.ctx)).action, "continue");
    assert.deepEqual(
      on.ledger().map((e) => [e.gate, e.verdict]),
      [
        ["verify", "pass"],
        ["test-integrity", "pass"],
        ["test-strength", "fail"],
      ],
    );
    const verify = on.ctx.verify;
    assert.equal(verify?.status, "TEST_FAILURE");
    assert.equal(verify?.strategy, "scoped");
    assert.equal(verify?.success, false);
    assert.deepEqual(verify?.failures, [
      {
        file: "test/unrelated.test.js",
        name: "test-strength",
        message: "passes without the story's production change; it does not exercise it",
      },
    ]);
    assert.deepEqual(on.ctx.failureHistory, [1]);
  });
});
