// The test-integrity gate's lint / type-check kinds (check-config-changed, suppression-added) as the gate
// judges them: each story a commit on one shared repository, its judged tree that commit's tree.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { createEventBus } from "../../src/bus/event-bus.js";
import { type ConfigInput, ConfigSchema } from "../../src/config/schema.js";
import type { TestIntegrityFinding } from "../../src/model/events.js";
import type { Judged } from "../../src/model/ledger.js";
import { findingKey } from "../../src/verification/strategies/test-integrity/allowance.js";
import { ANSWERED, judgeIntegrity, REASONED } from "../../src/verification/strategies/test-integrity.js";
import type { StoryWork } from "../../src/verification/workspace.js";
import { git, write } from "../support/fixture-repo.js";

const run = promisify(execFile);
const gitEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-integrity-checks-")));
after(() => rmSync(work, { recursive: true, force: true }));

const COMMANDS = { test: "node --test test/", lint: "npm run check", typecheck: "tsc --noEmit" };
const CONFIG = (commands: Record<string, string>) =>
  `${JSON.stringify({ quality: { commands } }, null, 2)}\n`;
const PKG = (scripts: Record<string, string>) => `${JSON.stringify({ type: "module", scripts }, null, 2)}\n`;
const PARSE = [
  "export function parse(text: string): number {",
  "  // biome-ignore lint/style/useNumberNamespace: the old API",
  "  return parseInt(text, 10);",
  "}",
  "",
].join("\n");
const BASE_FILES: Record<string, string> = {
  "package.json": PKG({ test: "node --test test/", check: "biome check ." }),
  ".gantry/config.json": CONFIG(COMMANDS),
  "tsconfig.json": '{\n  "compilerOptions": {\n    "strict": true\n  }\n}\n',
  "src/parse.ts": PARSE,
  "src/util.py": "def f():\n    return 1\n",
  "test/parse.test.js": 'import { test } from "node:test";\ntest("parses", () => {});\n',
};

let root = "";
let base = "";
before(() => {
  root = join(work, "repo");
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  for (const [path, text] of Object.entries(BASE_FILES)) write(root, path, text);
  git(root, "add", "-A");
  git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
  base = git(root, "rev-parse", "HEAD");
});

let stories = 0;
/** A commit on the base with `files` written (text) or removed (null), by one `git fast-import`. */
async function story(files: Record<string, string | null>): Promise<Judged> {
  const ref = `refs/stories/s${++stories}`;
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const stream = [
    `commit ${ref}\ncommitter Test <test@example.com> 0 +0000\n${data("story")}from ${base}\n`,
    ...Object.entries(files).map(([path, text]) =>
      text === null ? `D ${path}\n` : `M 100644 inline ${path}\n${data(text)}`,
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

function judge(
  judged: Judged,
  criteria: string[] = [],
  answered?: ReadonlySet<string>,
  config: ConfigInput = {},
  reported: string[] = [],
) {
  const ctx = {
    run: {
      root,
      config: ConfigSchema.parse({ quality: { commands: COMMANDS }, ...config }),
      signal: new AbortController().signal,
      bus: createEventBus({ runId: "r1" }),
      git: { judge: async () => judged },
    },
    story: { id: "US-1" },
    baseSha: base,
    pass: 1,
  } as unknown as StoryWork;
  return judgeIntegrity(ctx, judged, criteria, answered, reported);
}
const summary = (findings: TestIntegrityFinding[]) =>
  findings.map((f) => `${f.kind} ${f.file}${f.line ? `:${f.line}` : ""}`);

describe("test-integrity: lint and type-check configuration and suppressions", { concurrency: true }, () => {
  it("a blanket suppression in production code fails the gate, though the story touched no test; a specific one is shown, not failed", async () => {
    const result = await judge(
      await story({
        "src/parse.ts": PARSE.replace("  return", "  // @ts-ignore\n  return"),
        "src/util.py":
          "def f():\n    return g()  # type: ignore[name-defined]\n\ndef h():\n    return k._x  # noqa: SLF001\n\ndef i():\n    return j()  # type: ignore\n",
      }),
    );
    assert.equal(result.verdict, "fail");
    assert.deepEqual(summary(result.findings), [
      "suppression-added src/parse.ts:3",
      "suppression-added src/util.py:8",
    ]);
    assert.equal(
      result.findings[0]?.evidence,
      "new @ts-ignore (typescript), blanket (it names no rule or error code, or covers the whole file): // @ts-ignore",
    );
    assert.match(result.reason ?? "", /src\/parse\.ts:3: new @ts-ignore/);
    assert.deepEqual(
      result.allowed.map((f) => [f.file, f.line, f.allowedBy]),
      [
        ["src/util.py", 2, REASONED],
        ["src/util.py", 5, REASONED],
      ],
    );
  });

  it("a specific suppression alone passes with it shown; verify.suppressions none fails it; silencing exactly what the check reported fails", async () => {
    const judged = await story({
      "src/util.py": "def f():\n    return g()  # type: ignore[attr-defined]\n",
    });
    const shown = await judge(judged);
    assert.deepEqual([shown.verdict, shown.findings, shown.allowed.length], ["pass", [], 1]);
    const none = await judge(judged, [], undefined, { verify: { suppressions: "none" } });
    assert.equal(none.verdict, "fail");
    assert.match(none.findings[0]?.evidence ?? "", /, and verify\.suppressions is none:/);
    const mypy = 'src/util.py:2: error: Module has no attribute "g"  [attr-defined]\nFound 1 error in 1 file';
    const silenced = await judge(judged, [], undefined, {}, [mypy]);
    assert.equal(silenced.verdict, "fail");
    assert.match(
      silenced.findings[0]?.evidence ?? "",
      /silencing attr-defined, exactly what the lint \/ type check reported/,
    );
    const elsewhere = await judge(judged, [], undefined, {}, [mypy.replaceAll("util.py", "other.py")]);
    assert.equal(elsewhere.verdict, "pass", "the same code reported for another file is not this failure");
  });

  it("a suppression that was only moved is not new, and code alone is not applicable", async () => {
    const moved = PARSE.replace(
      "  // biome-ignore lint/style/useNumberNamespace: the old API\n  return parseInt(text, 10);",
      "  const trimmed = text.trim();\n    // biome-ignore lint/style/useNumberNamespace: the old API\n  return parseInt(trimmed, 10);",
    );
    const result = await judge(await story({ "src/parse.ts": moved }));
    assert.deepEqual([result.verdict, result.findings], ["not-applicable", []]);
  });

  it("a relaxed tsconfig fails; a criterion naming it with a word for the change allows it, and the gate passes", async () => {
    const judged = await story({
      "tsconfig.json": '{\n  "compilerOptions": {\n    "strict": false,\n    "skipLibCheck": true\n  }\n}\n',
    });
    const failed = await judge(judged);
    assert.deepEqual(
      [failed.verdict, summary(failed.findings)],
      ["fail", ["check-config-changed tsconfig.json:3"]],
    );
    const criterion = "Relax strict in tsconfig.json for the generated client";
    const allowed = await judge(judged, ["The parser reads dates", criterion]);
    assert.deepEqual([allowed.verdict, allowed.findings], ["pass", []]);
    assert.deepEqual(
      allowed.allowed.map((f) => [f.kind, f.allowedBy]),
      [["check-config-changed", criterion]],
    );
  });

  it("quality.commands: lint / typecheck changes are check-config-changed, the test command's test-config-changed", async () => {
    const lint = await judge(
      await story({ ".gantry/config.json": CONFIG({ ...COMMANDS, typecheck: "true" }) }),
    );
    assert.deepEqual(summary(lint.findings), ["check-config-changed .gantry/config.json:6"]);
    assert.match(
      lint.findings[0]?.evidence ?? "",
      /^quality\.commands\.typecheck: "tsc --noEmit" → "true" \(committed at/,
    );
    const both = await judge(
      await story({ ".gantry/config.json": CONFIG({ ...COMMANDS, test: "true", lint: "true" }) }),
    );
    assert.deepEqual(summary(both.findings), [
      "test-config-changed .gantry/config.json:4",
      "check-config-changed .gantry/config.json:5",
    ]);
    assert.doesNotMatch(both.findings[0]?.evidence ?? "", /lint/);
    assert.doesNotMatch(both.findings[1]?.evidence ?? "", /test/);
  });

  it("package.json: the script the lint command reaches, and a new lint* script; unrelated scripts are not findings", async () => {
    const result = await judge(
      await story({
        "package.json": PKG({ test: "node --test test/", check: "true", "lint:ci": "true", build: "tsc" }),
      }),
    );
    assert.deepEqual(summary(result.findings), [
      "check-config-changed package.json:5",
      "check-config-changed package.json:6",
    ]);
    assert.deepEqual(
      result.findings.map((f) => f.evidence),
      ['scripts.check: "biome check ." → "true"', 'scripts.lint:ci: added as "true"'],
    );
  });

  it("a suppression in a test file is found next to its skip marker; a person's answer allows exactly it", async () => {
    const judged = await story({
      "test/parse.test.js":
        'import { test } from "node:test";\n// eslint-disable-next-line no-empty-function\ntest.skip("parses", () => {});\n',
    });
    const result = await judge(judged);
    assert.deepEqual(summary(result.findings), [
      "marker-added test/parse.test.js:3",
      "suppression-added test/parse.test.js:2",
    ]);
    const suppression = result.findings[1] as TestIntegrityFinding;
    const answered = await judge(judged, [], new Set([findingKey(suppression)]));
    assert.deepEqual(summary(answered.findings), ["marker-added test/parse.test.js:3"]);
    assert.deepEqual(answered.allowed, [{ ...suppression, allowedBy: ANSWERED }]);
  });
});
