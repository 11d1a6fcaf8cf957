import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { type ConfigInput, ConfigSchema } from "../../src/config/schema.js";
import { openRepo } from "../../src/git/repo.js";
import { VerdictBook } from "../../src/ledger/book.js";
import type { LedgerEntry } from "../../src/model/ledger.js";
import type { Story } from "../../src/prd/story.js";
import type { RunContext, StoryContext } from "../../src/stages/context.js";
import { verifyStage } from "../../src/stages/verify.js";
import { wireLedger } from "../../src/subscribers/ledger.js";
import { silentLogger } from "../../src/util/logger.js";
import { runTestIntegrity } from "../../src/verification/strategies/test-integrity.js";
import { runTestStrength } from "../../src/verification/strategies/test-strength.js";
import { git, write } from "../support/fixture-repo.js";

// Under node's test runner NODE_TEST_CONTEXT is set; a `node --test` started by the gate would report here.
delete process.env.NODE_TEST_CONTEXT;

const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-integrity-test-")));
after(() => rmSync(work, { recursive: true, force: true }));

const SCOPED = "node --test --test-reporter=spec {{files}}";

const MATH = "export const add = (a, b) => a + b;\nexport const sub = (a, b) => a - b;\n";
const TESTS = (...cases: string[]) =>
  `import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { add, sub } from "../src/math.js";\n\n${cases.join("\n")}\n`;
const ADD = 'test("add", () => assert.equal(add(2, 3), 5));';
const SUB = 'test("sub", () => assert.equal(sub(3, 2), 1));';

let repos = 0;
function baseRepo(): { root: string; base: string } {
  const root = join(work, `repo-${++repos}`);
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.name", "Test");
  git(root, "config", "user.email", "test@example.com");
  write(
    root,
    "package.json",
    `${JSON.stringify({ type: "module", scripts: { test: "node --test test/" } }, null, 2)}\n`,
  );
  write(root, "src/math.js", MATH);
  write(root, "test/math.test.js", TESTS(ADD, SUB));
  write(root, "test/old.test.js", TESTS(ADD));
  write(root, ".git/info/exclude", ".gantry/runs/\n");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  return { root, base: git(root, "rev-parse", "HEAD") };
}

let runs = 0;
async function harness(root: string, base: string, criteria: string[] = [], config: ConfigInput = {}) {
  const runId = `r${++runs}`;
  const runDir = join(root, ".gantry", "runs", runId);
  mkdirSync(runDir, { recursive: true });
  const bus = createEventBus({ runId });
  const verdicts = new VerdictBook("math", randomBytes(32));
  wireLedger(bus, { runDir });
  const run = {
    runId,
    feature: "math",
    root,
    runDir,
    config: ConfigSchema.parse({
      quality: { commands: { test: "node --test --test-reporter=spec test/", testScoped: SCOPED } },
      ...config,
    }),
    verdicts,
    mandatoryGates: ["verify", "review", "test-integrity"],
    bus,
    git: await openRepo(root),
    signal: new AbortController().signal,
  } as unknown as RunContext;
  const ctx: StoryContext = {
    run,
    story: { id: "US-1", title: "math", acceptanceCriteria: criteria } as unknown as Story,
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
  return { ctx, ledger };
}

const integrity = (ctx: StoryContext) =>
  runTestIntegrity(ctx, { acceptanceCriteria: ctx.story.acceptanceCriteria });
const summary = (findings: { kind: string; file: string; line?: number }[]) =>
  findings.map((f) => `${f.kind} ${f.file}${f.line ? `:${f.line}` : ""}`);

describe("test-integrity gate", () => {
  it("passes an honest story (a new test, changed code) and records the verdict on the judged tree", async () => {
    const { root, base } = baseRepo();
    write(root, "src/math.js", `${MATH}export const mul = (a, b) => a * b;\n`);
    write(
      root,
      "test/mul.test.js",
      `${TESTS().replace("{ add, sub }", "{ mul }")}test("mul", () => assert.equal(mul(2, 3), 6));\n`,
    );
    write(root, "test/math.test.js", TESTS(ADD, SUB, 'test("add zero", () => assert.equal(add(2, 0), 2));'));
    const { ctx, ledger } = await harness(root, base);
    const judged = await ctx.run.git.judge();
    const result = await integrity(ctx);
    assert.equal(result.verdict, "pass", JSON.stringify(result));
    assert.deepEqual(result.counts, [{ file: "test/math.test.js", base: 2, now: 3 }]);
    const [entry] = ledger();
    assert.equal(entry?.gate, "test-integrity");
    assert.equal(entry?.verdict, "pass");
    assert.equal(entry?.tree, judged.tree);
    assert.deepEqual(entry?.detail.findings, []);
    // Nothing left behind: no scratch worktree, HEAD where it was.
    assert.equal(
      git(root, "worktree", "list", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith("worktree ")).length,
      1,
    );
    assert.equal(git(root, "rev-parse", "HEAD"), base);
  });

  it("is not applicable when no test file and no test configuration changed", async () => {
    const { root, base } = baseRepo();
    write(root, "src/math.js", `${MATH}// tidy\n`);
    const { ctx, ledger } = await harness(root, base);
    const result = await integrity(ctx);
    assert.equal(result.verdict, "not-applicable");
    assert.equal(ledger()[0]?.verdict, "not-applicable");
  });

  it("fails a deleted test file and one renamed away from the test conventions, naming each", async () => {
    const { root, base } = baseRepo();
    unlinkSync(join(root, "test/old.test.js"));
    renameSync(join(root, "test/math.test.js"), join(root, "test/math.test.js.bak"));
    const { ctx, ledger } = await harness(root, base);
    const result = await integrity(ctx);
    assert.equal(result.verdict, "fail");
    assert.deepEqual(summary(result.findings), [
      "test-renamed-away test/math.test.js",
      "test-deleted test/old.test.js",
    ]);
    assert.match(
      result.findings[0]?.evidence ?? "",
      /renamed to test\/math\.test\.js\.bak, which is not a test file/,
    );
    const [entry] = ledger();
    assert.equal(entry?.verdict, "fail");
    assert.deepEqual(entry?.detail.findings, result.findings);
  });

  it("fails a new test.skip with its line, and counts the tests the file no longer executes", async () => {
    const { root, base } = baseRepo();
    write(root, "test/math.test.js", TESTS(ADD, SUB.replace("test(", "test.skip(")));
    const { ctx } = await harness(root, base);
    const result = await integrity(ctx);
    assert.equal(result.verdict, "fail");
    assert.deepEqual(summary(result.findings), [
      "marker-added test/math.test.js:6",
      "fewer-tests test/math.test.js",
    ]);
    assert.match(result.findings[0]?.evidence ?? "", /^new test\.skip \(node:test.*\): test\.skip\("sub"/);
    assert.match(
      result.findings[1]?.evidence ?? "",
      /executed 2 test\(s\) at the base commit [0-9a-f]{12} and 1 now/,
    );
  });

  it("fails fewer tests executed with no marker at all (a test case removed from the file)", async () => {
    const { root, base } = baseRepo();
    write(root, "test/math.test.js", TESTS(ADD));
    const { ctx } = await harness(root, base);
    const result = await integrity(ctx);
    assert.deepEqual(summary(result.findings), ["fewer-tests test/math.test.js"]);
    assert.deepEqual(result.counts, [{ file: "test/math.test.js", base: 2, now: 1 }]);
  });

  it("fails a rewritten test script, and lets an acceptance criterion that names the change allow it", async () => {
    const { root, base } = baseRepo();
    write(
      root,
      "package.json",
      `${JSON.stringify({ type: "module", scripts: { test: "echo 1 passed" } }, null, 2)}\n`,
    );
    unlinkSync(join(root, "test/old.test.js"));
    const failed = await integrity((await harness(root, base)).ctx);
    assert.deepEqual(summary(failed.findings), [
      "test-deleted test/old.test.js",
      "test-config-changed package.json:4",
    ]);
    const criteria = [
      "Remove the obsolete test/old.test.js",
      "Change the test script in package.json to the new runner",
    ];
    const { ctx, ledger } = await harness(root, base, criteria);
    const allowed = await integrity(ctx);
    assert.equal(allowed.verdict, "pass", JSON.stringify(allowed));
    assert.deepEqual(
      allowed.allowed.map((f) => [f.file, f.allowedBy]),
      [
        ["test/old.test.js", criteria[0]],
        ["package.json", criteria[1]],
      ],
    );
    assert.equal((ledger()[0]?.detail.allowed as unknown[] | undefined)?.length, 2);
    // A criterion that names the file but not the kind of change allows nothing.
    const unrelated = await integrity((await harness(root, base, ["test/old.test.js keeps working"])).ctx);
    assert.equal(unrelated.verdict, "fail");
  });

  it("in the verify stage: a fail after a scoped pass goes to rectify with the evidence", async () => {
    const { root, base } = baseRepo();
    write(root, "test/math.test.js", TESTS(ADD, SUB, 'test.todo("mul");'));
    const { ctx, ledger } = await harness(root, base);
    const result = await verifyStage.execute(ctx);
    assert.deepEqual(result, { action: "continue" });
    assert.equal(ctx.verify?.status, "TEST_FAILURE");
    assert.deepEqual(ctx.verify?.failures, [
      {
        file: "test/math.test.js",
        name: "test-integrity: marker-added",
        message: 'line 7: new test.todo (node:test/vitest/jest/mocha): test.todo("mul");',
      },
    ]);
    assert.match(ctx.verify?.rawOutputTail ?? "", /remove the skip \/ todo \/ only markers you added/);
    assert.deepEqual(
      ledger().map((e) => [e.gate, e.verdict]),
      [
        ["verify", "pass"],
        ["test-integrity", "fail"],
      ],
    );
    assert.equal(ledger()[1]?.tree, ledger()[0]?.tree, "judged on the tree verify judged");
  });
});

describe("test-strength when a story only deleted or skipped tests", () => {
  it("says fail, not not-applicable, for a story that only deleted a test file", async () => {
    const { root, base } = baseRepo();
    unlinkSync(join(root, "test/old.test.js"));
    const { ctx } = await harness(root, base);
    const result = await runTestStrength(ctx);
    assert.equal(result.verdict, "fail");
    assert.match(result.reason ?? "", /only deleted or skipped tests \(test\/old\.test\.js deleted\)/);
  });

  it("says fail for a story that only skipped a test, and stays not-applicable for a test-only refactor", async () => {
    const { root, base } = baseRepo();
    write(root, "test/math.test.js", TESTS(ADD, SUB.replace("test(", "test.skip(")));
    const skipped = await runTestStrength((await harness(root, base)).ctx);
    assert.equal(skipped.verdict, "fail");
    assert.match(skipped.reason ?? "", /a skip marker added to test\/math\.test\.js/);
    write(root, "test/math.test.js", TESTS(SUB, ADD));
    const refactor = await runTestStrength((await harness(root, base)).ctx);
    assert.equal(refactor.verdict, "not-applicable");
  });
});
