// The test-integrity gate's rules, each story a commit on one shared repository (its judged tree is that
// commit's tree), so that the cases need no working-tree scan and, but for the two that count tests, no
// test run: fast enough to run for every mutant of src/verification/strategies/test-integrity.ts.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { createEventBus } from "../../src/bus/event-bus.js";
import { type ConfigInput, ConfigSchema } from "../../src/config/schema.js";
import { UNBORN } from "../../src/git/repo.js";
import { VerdictBook } from "../../src/ledger/book.js";
import type { TestIntegrityFinding } from "../../src/model/events.js";
import type { Judged } from "../../src/model/ledger.js";
import { findingKey } from "../../src/verification/strategies/test-integrity/allowance.js";
import {
  ANSWERED,
  judgeIntegrity,
  runTestIntegrity,
} from "../../src/verification/strategies/test-integrity.js";
import type { StoryWork } from "../../src/verification/workspace.js";
import { git, write } from "../support/fixture-repo.js";

// Under node's test runner NODE_TEST_CONTEXT is set; a `node --test` started by the gate would report here.
delete process.env.NODE_TEST_CONTEXT;

const run = promisify(execFile);
/** git without the GIT_* variables of whatever repository or hook the tests run under. */
const gitEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-integrity-rules-")));
after(() => rmSync(work, { recursive: true, force: true }));

const TESTS = (...cases: string[]) =>
  `import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { add, sub } from "../src/math.js";\n\n${cases.join("\n")}\n`;
const ADD = 'test("add", () => assert.equal(add(2, 3), 5));';
const SUB = 'test("sub", () => assert.equal(sub(3, 2), 1));';
const COMMANDS = { test: "node --test test/", lint: "npm run check" };

const BASE_FILES: Record<string, string> = {
  "package.json": `${JSON.stringify({ type: "module", scripts: { test: "node --test test/", check: "biome check" } }, null, 2)}\n`,
  ".gantry/config.json": `${JSON.stringify({ quality: { commands: COMMANDS } }, null, 2)}\n`,
  "README.md": "# math\n",
  "src/math.js": "export const add = (a, b) => a + b;\nexport const sub = (a, b) => a - b;\n",
  "src/check.js": "export const check = () => true;\n",
  "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
  "tests/it.rs": "#[test]\nfn adds() {\n    assert_eq!(math::add(1, 2), 3);\n}\n",
  "crates/core/tests/more.rs": "#[test]\nfn more() {}\n",
  "tests/data.txt": "1 2 3\n",
  "test/math.test.js": TESTS(ADD, SUB),
  "test/old.test.js": TESTS(ADD),
};

let root = "";
let base = "";
before(() => {
  root = join(work, "repo");
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.name", "Test");
  git(root, "config", "user.email", "test@example.com");
  for (const [path, text] of Object.entries(BASE_FILES)) write(root, path, text);
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  base = git(root, "rev-parse", "HEAD");
});

let stories = 0;
/**
 * A commit on `from` with files written (text) or removed (null), made by one `git fast-import` without
 * touching the working tree or the index.
 */
async function story(
  files: Record<string, string | null | { text: string; mode: "100755" }>,
  from = base,
): Promise<Judged> {
  const ref = `refs/stories/s${++stories}`;
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const stream = [
    `commit ${ref}\ncommitter Test <test@example.com> 0 +0000\n${data("story")}`,
    from === UNBORN ? "" : `from ${from}\n`,
    ...Object.entries(files).map(([path, file]) =>
      file === null
        ? `D ${path}\n`
        : typeof file === "string"
          ? `M 100644 inline ${path}\n${data(file)}`
          : `M ${file.mode} inline ${path}\n${data(file.text)}`,
    ),
  ].join("");
  await new Promise<void>((resolve, reject) => {
    const child = execFile("git", ["fast-import", "--quiet"], { cwd: root, env: gitEnv }, (error) =>
      error ? reject(error) : resolve(),
    );
    child.stdin?.end(stream);
  });
  const { stdout } = await run("git", ["rev-parse", ref, `${ref}^{tree}`], { cwd: root, env: gitEnv });
  const [sha = "", tree = ""] = stdout.trim().split("\n");
  return { sha, tree };
}

function work_(config: ConfigInput = {}, baseSha = base, judged?: Judged): StoryWork {
  const bus = createEventBus({ runId: "r1" });
  return {
    run: {
      root,
      config: ConfigSchema.parse({ quality: { commands: COMMANDS }, ...config }),
      signal: new AbortController().signal,
      bus,
      verdicts: new VerdictBook("f", randomBytes(32)),
      feature: "f",
      runId: "r1",
      git: { judge: async () => judged ?? { sha: base, tree: git(root, "rev-parse", `${base}^{tree}`) } },
    },
    story: { id: "US-1" },
    baseSha,
    pass: 2,
  } as unknown as StoryWork;
}

const judge = (
  judged: Judged,
  criteria: string[] = [],
  answered?: ReadonlySet<string>,
  config?: ConfigInput,
) => judgeIntegrity(work_(config), judged, criteria, answered);
const summary = (findings: TestIntegrityFinding[]) =>
  findings.map((f) => `${f.kind} ${f.file}${f.line ? `:${f.line}` : ""}`);

describe("test-integrity rules", { concurrency: true }, () => {
  it("deleting or renaming files that are not tests is not a finding, and alone is not applicable", async () => {
    const result = await judge(
      await story({
        "README.md": null,
        "tests/data.txt": null,
        "src/check.js": null,
        "src/arith.js": BASE_FILES["src/math.js"] as string,
        "src/math.js": null,
      }),
    );
    assert.deepEqual(
      [result.verdict, result.findings, result.allowed, result.counts, result.reason],
      ["not-applicable", [], [], [], "the story touched no test file and no test configuration"],
    );
  });

  it("renaming a test file to another test file's name is no finding, and the story touched tests", async () => {
    const result = await judge(
      await story({
        "test/old.test.js": null,
        "test/legacy.test.js": BASE_FILES["test/old.test.js"] as string,
      }),
    );
    assert.deepEqual([result.verdict, result.findings], ["pass", []]);
  });

  it("a renamed test file is diffed against its old name: a skip it already had is not new, one added is", async () => {
    const SKIP = 'test.skip("later", () => assert.equal(add(1, 1), 2));';
    const withSkip = await story({ "test/skipping.test.js": TESTS(ADD, SKIP) });
    const renamed = await story(
      { "test/skipping.test.js": null, "test/renamed.test.js": TESTS(ADD, SKIP, SUB) },
      withSkip.sha,
    );
    const kept = await judgeIntegrity(work_({}, withSkip.sha), renamed, []);
    assert.deepEqual([kept.verdict, summary(kept.findings)], ["pass", []]);
    const added = await story(
      { "test/skipping.test.js": null, "test/renamed.test.js": TESTS(ADD, SKIP, `test.skip${SUB.slice(4)}`) },
      withSkip.sha,
    );
    const found = await judgeIntegrity(work_({}, withSkip.sha), added, []);
    assert.deepEqual(
      [found.verdict, summary(found.findings)],
      ["fail", ["marker-added test/renamed.test.js:7"]],
    );
  });

  it("a test file renamed to a name that is not a test's is a finding that names both", async () => {
    const result = await judge(
      await story({ "test/old.test.js": null, "test/old.js.bak": BASE_FILES["test/old.test.js"] as string }),
    );
    assert.deepEqual(
      result.findings.map((f) => [f.kind, f.file, f.evidence]),
      [
        [
          "test-renamed-away",
          "test/old.test.js",
          "test file test/old.test.js was renamed to test/old.js.bak, which is not a test file",
        ],
      ],
    );
    assert.deepEqual(result.counts, [], "a renamed file is not a changed one to count");
  });

  it("a test file whose mode alone changed is a changed test with no added line", async () => {
    const result = await judge(
      await story({
        "test/math.test.js": { text: BASE_FILES["test/math.test.js"] as string, mode: "100755" },
      }),
    );
    assert.deepEqual([result.verdict, result.findings], ["pass", []]);
    assert.equal(result.counts[0]?.file, "test/math.test.js");
  });

  it("a code file renamed into a test file is a touched test: the gate applies and passes", async () => {
    const result = await judge(
      await story({ "src/check.js": null, "test/check.test.js": BASE_FILES["src/check.js"] as string }),
    );
    assert.deepEqual([result.verdict, result.findings, result.counts], ["pass", [], []]);
  });

  it("a Rust integration test under tests/ is a test: deleting it fails, a new #[ignore] in it fails", async () => {
    const deleted = await judge(await story({ "tests/it.rs": null, "crates/core/tests/more.rs": null }));
    assert.deepEqual(summary(deleted.findings), [
      "test-deleted crates/core/tests/more.rs",
      "test-deleted tests/it.rs",
    ]);
    const ignored = await judge(
      await story({
        "tests/it.rs": `#[test]\n#[ignore]\nfn adds() {\n    assert_eq!(math::add(1, 2), 3);\n}\n`,
      }),
    );
    assert.deepEqual(summary(ignored.findings), ["marker-added tests/it.rs:2"]);
    assert.equal(ignored.findings[0]?.evidence, "new #[ignore (cargo test): #[ignore]");
  });

  it("a new #[ignore] in a Rust source file (its unit tests live there) fails; skip text in other code does not", async () => {
    const rust = await judge(
      await story({
        "src/lib.rs": `${BASE_FILES["src/lib.rs"]}\n#[cfg(test)]\nmod tests {\n    #[test]\n    #[ignore]\n    fn slow() {}\n}\n`,
      }),
    );
    assert.deepEqual(summary(rust.findings), ["marker-added src/lib.rs:8"]);
    const helper = await judge(
      await story({ "src/helpers.js": 'export const later = () => test.skip("x", () => {});\n' }),
    );
    assert.deepEqual(
      [helper.verdict, helper.findings],
      ["not-applicable", []],
      "markers are looked for in tests",
    );
    const js = await judge(
      await story({
        "src/math.js": `${BASE_FILES["src/math.js"]}// test.skip("later")\nexport const it = { skip: 1 };\n`,
      }),
    );
    assert.deepEqual([js.verdict, js.findings], ["not-applicable", []]);
  });

  it("a skip marker after an added line that prints like a diff header (`++ x` as `+++ x`) is still found", async () => {
    const hidden = 'let n = 0;\n++ n\ntest.skip("sub", () => assert.equal(sub(3, 2), 1));';
    const result = await judge(await story({ "test/math.test.js": TESTS(ADD, hidden) }));
    assert.equal(result.verdict, "fail");
    assert.deepEqual(
      result.findings.map((f) => [f.file, f.line]),
      [["test/math.test.js", 8]],
    );
  });

  it("the reason names each finding with file, line where there is one, and evidence", async () => {
    const result = await judge(
      await story({
        "test/old.test.js": null,
        "test/math.test.js": TESTS(ADD, SUB.replace("test(", "test.skip(")),
      }),
    );
    assert.equal(result.verdict, "fail");
    assert.equal(
      result.reason,
      'test/old.test.js: test file test/old.test.js was deleted; test/math.test.js:6: new test.skip (node:test/vitest/jest/mocha): test.skip("sub", () => assert.equal(sub(3, 2), 1));',
    );
  });

  it("a person's answer allows exactly the findings it names, recorded as an interaction answer", async () => {
    const judged = await story({ "test/old.test.js": null, "tests/it.rs": null });
    const first = await judge(judged);
    const deletion = first.findings.find((f) => f.file === "test/old.test.js") as TestIntegrityFinding;
    const result = await judge(judged, [], new Set([findingKey(deletion)]));
    assert.equal(result.verdict, "fail");
    assert.deepEqual(result.allowed, [{ ...deletion, allowedBy: ANSWERED }]);
    assert.deepEqual(summary(result.findings), ["test-deleted tests/it.rs"]);
    const all = await judge(judged, [], new Set(first.findings.map(findingKey)));
    assert.deepEqual(
      [all.verdict, all.findings.length, all.allowed.length, all.reason],
      ["pass", 0, 2, undefined],
    );
  });

  it("a changed script that a configured command runs is a test-config finding even when not named test*", async () => {
    const pkg = JSON.parse(BASE_FILES["package.json"] as string);
    pkg.scripts.check = "echo ok";
    const result = await judge(
      await story({ "package.json": `${JSON.stringify(pkg, null, 2)}\n` }),
      [],
      undefined,
      {
        quality: { commands: { test: "node --test test/", testScoped: "npm run check -- {{files}}" } },
      },
    );
    assert.deepEqual(summary(result.findings), ["test-config-changed package.json:5"]);
    assert.equal(result.verdict, "fail");
  });

  it("quality.commands changed in the committed config is a finding that names the commit", async () => {
    const judged = await story({
      ".gantry/config.json": `${JSON.stringify({ quality: { commands: { ...COMMANDS, test: "echo 1 passed" } } }, null, 2)}\n`,
    });
    const result = await judge(judged);
    assert.equal(result.verdict, "fail");
    assert.deepEqual(summary(result.findings), ["test-config-changed .gantry/config.json:4"]);
    assert.match(
      result.findings[0]?.evidence ?? "",
      new RegExp(`\\(committed at ${judged.sha.slice(0, 12)}\\)$`),
    );
  });

  it("a changed test file is not compared without a scoped test command, and says why", async () => {
    const result = await judge(
      await story({
        "test/math.test.js": TESTS(SUB, ADD),
        "src/math.js": `${BASE_FILES["src/math.js"]}// more\n`,
      }),
    );
    assert.deepEqual(
      [result.verdict, result.findings],
      ["pass", []],
      "a test changed with the code: applicable",
    );
    assert.deepEqual(result.counts, [
      {
        file: "test/math.test.js",
        note: "not compared: no scoped test command (quality.commands.testScoped) to run one file with",
      },
    ]);
  });

  it("changed test files past verify.maxScopedFiles are not compared, and say so", async () => {
    const result = await judge(
      await story({ "test/math.test.js": TESTS(SUB, ADD), "test/old.test.js": TESTS(ADD, "") }),
      [],
      undefined,
      {
        quality: { commands: { test: "node --test test/", testScoped: "true {{files}}" } },
        verify: { maxScopedFiles: 1 },
      },
    );
    assert.equal(result.verdict, "pass");
    assert.deepEqual(result.counts, [
      { file: "test/math.test.js", base: 0, note: "not compared: it executed no test at base (UNPARSED)" },
      {
        file: "test/old.test.js",
        note: "not compared: more than 1 changed test files (verify.maxScopedFiles)",
      },
    ]);
  });

  it("a story on an unborn branch is judged against the empty tree: every test it adds is new", async () => {
    const judged = await story(
      {
        "test/a.test.js": 'import { test } from "node:test";\ntest.only("a", () => {});\n',
        "README.md": "# new\n",
      },
      UNBORN,
    );
    const result = await judgeIntegrity(work_({}, UNBORN), judged, []);
    assert.deepEqual(summary(result.findings), ["marker-added test/a.test.js:2"]);
    assert.deepEqual(result.counts, []);
  });

  it("the result goes on the bus bound to the tree judged, with its reason when there is one", async () => {
    const judged = await story({ "test/old.test.js": null });
    const ctx = work_({}, base, judged);
    const seen: unknown[] = [];
    ctx.run.bus.on("test-integrity:result", "test", ({ runId: _, at: __, ...event }) => {
      seen.push(event);
    });
    const failed = await runTestIntegrity(ctx, { acceptanceCriteria: [] });
    const passed = await runTestIntegrity(ctx, { acceptanceCriteria: ["Remove test/old.test.js"], judged });
    assert.deepEqual(seen, [
      {
        storyId: "US-1",
        verdict: "fail",
        findings: failed.findings,
        allowed: [],
        judged,
        attempt: 2,
        reason: "test/old.test.js: test file test/old.test.js was deleted",
      },
      { storyId: "US-1", verdict: "pass", findings: [], allowed: passed.allowed, judged, attempt: 2 },
    ]);
    assert.equal(passed.allowed[0]?.allowedBy, "Remove test/old.test.js");
  });
});

describe("test-integrity counts", () => {
  it("a changed test file that executes as many tests as at base passes; one fewer fails", async () => {
    const repo = join(work, "counts");
    mkdirSync(repo);
    git(repo, "init", "-q", "-b", "main");
    git(repo, "config", "user.name", "Test");
    git(repo, "config", "user.email", "test@example.com");
    for (const path of ["package.json", "src/math.js", "test/math.test.js"])
      write(repo, path, BASE_FILES[path] as string);
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "base");
    const at = git(repo, "rev-parse", "HEAD");
    write(repo, "test/math.test.js", TESTS(SUB, ADD));
    git(repo, "commit", "-q", "-am", "reorder");
    const judged = { sha: git(repo, "rev-parse", "HEAD"), tree: git(repo, "rev-parse", "HEAD^{tree}") };
    const ctx = work_(
      {
        quality: {
          commands: { test: "node --test test/", testScoped: "node --test --test-reporter=spec {{files}}" },
        },
      },
      at,
    );
    (ctx.run as { root: string }).root = repo;
    const result = await judgeIntegrity(ctx, judged, []);
    assert.deepEqual(result.counts, [{ file: "test/math.test.js", base: 2, now: 2 }]);
    assert.deepEqual([result.verdict, result.findings], ["pass", []]);

    write(repo, "test/math.test.js", TESTS(SUB));
    git(repo, "commit", "-q", "-am", "one test fewer");
    const fewer = await judgeIntegrity(
      ctx,
      { sha: git(repo, "rev-parse", "HEAD"), tree: git(repo, "rev-parse", "HEAD^{tree}") },
      [],
    );
    assert.deepEqual(fewer.counts, [{ file: "test/math.test.js", base: 2, now: 1 }]);
    assert.deepEqual(
      fewer.findings.map((f) => [f.kind, f.evidence]),
      [
        [
          "fewer-tests",
          `test/math.test.js executed 2 test(s) at the base commit ${at.slice(0, 12)} and 1 now`,
        ],
      ],
    );
  });
});
