import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  type CountInput,
  countTests,
} from "../../../src/verification/strategies/test-integrity/test-counts.js";
import { commitAll, git, write } from "../../support/fixture-repo.js";

const cases = (...names: string[]) =>
  `import { test } from "node:test";\n${names.map((n) => `test("${n}", () => {});`).join("\n")}\n`;
/** A `node --test` run from inside node's own test runner reports to it instead of printing: not here. */
const { NODE_TEST_CONTEXT: _, ...childEnv } = process.env;
const HANG = `import { test } from "node:test";\ntest("hangs", () => new Promise((r) => setTimeout(r, 60_000)));\n`;

/**
 * How many tests each changed test file executed at the story's base and now, run for real with node's
 * runner in a scratch worktree of the base and in the working tree; and every reason a file is not compared.
 */
describe("test-integrity: counting a changed test file's tests at base and now", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-test-counts-")));
  after(() => rmSync(root, { recursive: true, force: true }));
  write(root, "package.json", '{ "type": "module" }\n');
  write(root, "test/same.test.js", cases("one", "two"));
  write(root, "test/fewer.test.js", cases("one", "two"));
  write(root, "test/none.test.js", "// no test yet\n");
  write(root, "test/hangs-now.test.js", cases("one"));
  write(root, "test/hangs.test.js", HANG);
  write(root, "test/failing.test.js", `${cases("one")}test("two", () => { throw new Error("no"); });\n`);
  commitAll(root);
  const baseSha = git(root, "rev-parse", "HEAD");
  write(root, "test/same.test.js", cases("two", "one"));
  write(root, "test/fewer.test.js", cases("one"));
  write(root, "test/none.test.js", cases("one"));
  write(root, "test/hangs-now.test.js", HANG);

  const input = (files: string[], more: Partial<CountInput> = {}): CountInput => ({
    root,
    baseSha,
    files,
    template: "node --test --test-reporter=spec {{files}}",
    budgetMs: 60_000,
    env: childEnv,
    signal: new AbortController().signal,
    ...more,
  });

  it("the same count, one fewer, and a file that executed nothing at base (not compared, saying why)", async () => {
    assert.deepEqual(
      await countTests(input(["test/same.test.js", "test/fewer.test.js", "test/none.test.js"])),
      [
        { file: "test/same.test.js", base: 2, now: 2 },
        { file: "test/fewer.test.js", base: 2, now: 1 },
        { file: "test/none.test.js", base: 0, note: "not compared: it executed no test at base (NO_TESTS)" },
      ],
    );
    assert.deepEqual(await countTests(input([])), [], "no file: no worktree, nothing run");
  });

  it("a run that times out is not compared, and takes the budget the files after it would have had", async () => {
    const counts = await countTests(input(["test/hangs.test.js", "test/same.test.js"], { budgetMs: 1500 }));
    assert.equal(counts.length, 2);
    assert.equal(counts[0]?.file, "test/hangs.test.js");
    assert.match(counts[0]?.note ?? "", /^not compared: TIMEOUT \(.+\)$/);
    assert.equal("base" in (counts[0] ?? {}), false);
    assert.deepEqual(counts[1], {
      file: "test/same.test.js",
      note: "not compared: the gate's time budget (quality.timeoutSeconds) was used up",
    });
  });

  it("a file that runs at base and times out now keeps its base count and says why it was not compared", async () => {
    const [count] = await countTests(input(["test/hangs-now.test.js"], { budgetMs: 6000 }));
    assert.equal(count?.base, 1);
    assert.equal(count?.now, undefined);
    assert.match(count?.note ?? "", /^not compared: TIMEOUT/);
  });

  it("interrupted, no budget left, or no worktree of the base: each file says so", async () => {
    const files = ["test/same.test.js", "test/fewer.test.js"];
    assert.deepEqual(await countTests(input(files, { signal: AbortSignal.abort() })), [
      { file: "test/same.test.js", note: "not compared: interrupted" },
      { file: "test/fewer.test.js", note: "not compared: interrupted" },
    ]);
    assert.deepEqual(await countTests(input(["test/same.test.js"], { budgetMs: 0 })), [
      {
        file: "test/same.test.js",
        note: "not compared: the gate's time budget (quality.timeoutSeconds) was used up",
      },
    ]);
    const missing = await countTests(input(files, { baseSha: "0123456789abcdef0123456789abcdef01234567" }));
    assert.equal(missing.length, 2);
    for (const [i, count] of missing.entries()) {
      assert.equal(count.file, files[i]);
      assert.match(count.note ?? "", /^not compared: no worktree of the base commit \(.+\)$/);
    }
  });

  it("a failing test is an executed one; a runner that cannot start, or output nobody can read, executed none", async () => {
    assert.deepEqual(await countTests(input(["test/failing.test.js"])), [
      { file: "test/failing.test.js", base: 2, now: 2 },
    ]);
    assert.deepEqual(
      await countTests(input(["test/same.test.js"], { template: "gantry-no-such-runner {{files}}" })),
      [
        {
          file: "test/same.test.js",
          base: 0,
          note: "not compared: it executed no test at base (BUILD_ERROR)",
        },
      ],
    );
    assert.deepEqual(await countTests(input(["test/same.test.js"], { template: "echo hello {{files}}" })), [
      { file: "test/same.test.js", base: 0, note: "not compared: it executed no test at base (UNPARSED)" },
    ]);
  });

  it("Ctrl-C during a run: that file is not compared, and says it was interrupted", async () => {
    const controller = new AbortController();
    const counting = countTests(input(["test/hangs.test.js"], { signal: controller.signal }));
    setTimeout(() => controller.abort(), 1000);
    assert.deepEqual(await counting, [{ file: "test/hangs.test.js", note: "not compared: interrupted" }]);
  });

  it("leaves no worktree behind", () => {
    assert.deepEqual(
      git(root, "worktree", "list", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith("worktree ")),
      [`worktree ${root}`],
    );
  });
});
