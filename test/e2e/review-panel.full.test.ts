import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import {
  agentCalls,
  baseConfig,
  type CliResult,
  gantry,
  lastRun,
  makeProject,
  passingTest,
  prdStories,
  REPO,
  story,
} from "./harness.js";

/**
 * The review panel end to end: the built CLI, two fake reviewer CLIs on PATH (scripted, no AI) run as
 * command reviewers, the scripted agent. One run, one story per rule of docs/review.md.
 */
const REVIEWER = join(REPO, "test", "e2e", "fixtures", "fake-reviewer.mjs");
const blocking = (file: string, line: number, text: string, extra: Record<string, unknown> = {}) => ({
  findings: [{ file, line, severity: "blocking", text, ...extra }],
});
const test4 = `import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { four } from "../src/four.js";\ntest("four is 4", () => assert.equal(four(), 4));\n`;
const always = `import assert from "node:assert/strict";\nimport { test } from "node:test";\ntest("always", () => assert.equal(1, 2));\n`;

/**
 * US-1: every blocker is lowered (a lone one whose test also fails at base; two on one line under different
 * ruleIds), so the story passes. US-2: a blocker two reviewers raise 3 lines apart (one path with a diff
 * prefix) and a lone one whose test fails on the story's tree but passes at base both stand, and a lone
 * one is lowered: all three reach the rectify prompt, and after it the story passes. US-3: an answer that
 * is not JSON, twice, fails the gate and the story. US-4: prose once, then JSON when asked again: it passes.
 */
const REVIEW_PLAN = {
  "US-1": {
    a: {
      answer: {
        findings: [
          { file: "src/one.js", line: 1, severity: "blocking", text: "ONE-A", ruleId: "null-deref" },
          {
            file: "src/one.js",
            line: 0,
            severity: "blocking",
            text: "ONE-ALWAYS one is bad",
            test: { file: "test/review-one.test.js", name: "always", content: always },
          },
        ],
      },
    },
    b: { answer: blocking("src/one.js", 1, "ONE-B", { ruleId: "off-by-one" }) },
  },
  "US-2": {
    a: {
      when: { file: "src/two.js", contains: "BUG" },
      answer: {
        findings: [
          { file: "src/two.js", line: 5, severity: "blocking", text: "TWO-A two is a string" },
          {
            file: "src/four.js",
            line: 1,
            severity: "blocking",
            text: "FOUR-A four returns 5",
            test: { file: "test/review-four.test.js", name: "four is 4", content: test4 },
          },
        ],
      },
    },
    b: {
      when: { file: "src/two.js", contains: "BUG" },
      answer: {
        findings: [
          { file: "b/src/two.js", line: 8, severity: "blocking", text: "TWO-B wrong type" },
          { file: "src/two.js", line: 20, severity: "blocking", text: "B-LONE two is undocumented" },
        ],
      },
    },
  },
  "US-3": { b: { answer: "LGTM, ship it" } },
  "US-4": { b: { answer: "Looks fine to me.", again: { findings: [] } } },
};

const write = (files: Record<string, string>) => ({ write: files });
const AGENT_PLAN = {
  "US-1": [write({ "src/one.js": "export const one = 1;\n", "test/one.test.js": passingTest("one") })],
  "US-2": [
    write({
      "src/two.js": "export const two = 'BUG';\n",
      "src/four.js": "export const four = () => 5;\n",
      "test/two.test.js": passingTest("two"),
    }),
    write({ "src/two.js": "export const two = 2;\n", "src/four.js": "export const four = () => 4;\n" }),
  ],
  "US-3": [
    write({ "src/three.js": "export const three = 3;\n", "test/three.test.js": passingTest("three") }),
  ],
  "US-4": [write({ "src/five.js": "export const five = 5;\n", "test/five.test.js": passingTest("five") })],
};

interface ReviewCall {
  name: string;
  story: string;
  role: string;
  start: number;
  end: number;
  prompt: string;
  wrote: boolean;
  sawPeer: boolean;
}

describe("the review panel (built CLI, fake reviewer CLIs on PATH)", { timeout: 240_000 }, () => {
  let root = "";
  let result: CliResult;
  let calls: ReviewCall[] = [];
  let ledger: Record<string, unknown>[] = [];
  let promptsDir = "";

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-panel-"));
    writeFileSync(
      join(dir, "fake-reviewer"),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(REVIEWER)} "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const log = join(dir, "reviews.jsonl");
    const config = baseConfig();
    const quality = config.quality as { commands: Record<string, string> };
    delete quality.commands.lint;
    delete quality.commands.lintFix;
    quality.commands.testScoped = "node --test --test-reporter=spec {{files}}";
    config.routing = { tiers: ["fast"] };
    config.reporters = ["default", "markdown"];
    config.review = {
      panel: [
        { name: "a", command: "fake-reviewer a b" },
        { name: "b", command: "fake-reviewer b a" },
      ],
    };
    root = makeProject({
      stories: ["US-1", "US-2", "US-3", "US-4"].map((id) => story(id)),
      plan: AGENT_PLAN,
      config,
      files: {
        ".review-plan.json": JSON.stringify(REVIEW_PLAN),
        "src/four.js": "export const four = () => 4;\n",
      },
    });
    result = await gantry(root, ["run", "--feature", "f"], {
      env: { PATH: `${dir}:${process.env.PATH}`, REVIEW_LOG: log },
      timeoutMs: 400_000,
    });
    calls = existsSync(log)
      ? readFileSync(log, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as ReviewCall)
      : [];
    const run = lastRun(root);
    ledger = run.ledger;
    promptsDir = join(run.dir, "prompts");
  });

  const decisions = (id: string) =>
    ledger.filter((e) => e.storyId === id && e.gate === "review-decision") as {
      verdict: string;
      detail: {
        blockers: { basis: string; reviewers?: string[]; file: string }[];
        lowered: { loweredBecause: string }[];
        reason: string;
      };
    }[];
  const promptOf = (id: string, role: string) => {
    const file = readdirSync(promptsDir).find((f) => f.startsWith(`${id}-`) && f.endsWith(`-${role}.md`));
    assert.ok(file, `no ${role} prompt for ${id}: ${readdirSync(promptsDir).join(", ")}`);
    return readFileSync(join(promptsDir, file), "utf8");
  };

  it("runs: three stories pass, the one with an invalid answer (asked twice) fails", () => {
    const stories = prdStories(root);
    const status = Object.fromEntries(Object.entries(stories).map(([id, s]) => [id, s.status]));
    assert.deepEqual(
      status,
      { "US-1": "passed", "US-2": "passed", "US-3": "failed", "US-4": "passed" },
      result.stderr,
    );
    assert.equal(result.code, 1);
  });

  it("lowers lone blockers, one whose test also fails at base, and one line under two ruleIds", () => {
    const [only, ...more] = decisions("US-1");
    assert.equal(more.length, 0);
    assert.equal(only?.verdict, "pass");
    const why = only?.detail.lowered.map((l) => l.loweredBecause) ?? [];
    assert.deepEqual(why.slice().sort(), [
      "raised by 1 reviewer (a), two needed; its test did not confirm it: it fails on the story's tree but also at the story's base",
      "raised by 1 reviewer (a), two needed; no failing test",
      "raised by 1 reviewer (b), two needed; no failing test",
    ]);
    assert.equal(agentCalls(root).filter((c) => c.story === "US-1").length, 1);
  });

  it("blocks on two reviewers within 3 lines and on a test failing only on the story's tree; rectify gets them and the lowered one", () => {
    const [first, second, ...more] = decisions("US-2");
    assert.equal(more.length, 0);
    assert.equal(first?.verdict, "fail");
    const bases = first?.detail.blockers.map((b) => `${b.file}:${b.basis}:${(b.reviewers ?? []).join("+")}`);
    assert.deepEqual(bases, ["src/two.js:corroborated:a+b", "src/four.js:failing-test:"]);
    assert.equal(first?.detail.lowered.length, 1);
    assert.equal(second?.verdict, "pass");
    const rectify = promptOf("US-2", "rectify");
    assert.match(rectify, /TWO-A two is a string \(raised by a and b\)/);
    assert.match(rectify, /FOUR-A four returns 5 \(a's test test\/review-four\.test\.js fails/);
    assert.match(
      rectify,
      /B-LONE two is undocumented — raised as blocking, lowered: raised by 1 reviewer \(b\)/,
    );
    assert.deepEqual(
      agentCalls(root)
        .filter((c) => c.story === "US-2")
        .map((c) => c.role),
      ["implement", "rectify"],
    );
    assert.equal(
      existsSync(join(root, "test/review-four.test.js")),
      false,
      "the reviewer's test stays out of the tree",
    );
  });

  it("shows each finding with its basis in the report", () => {
    const report = readFileSync(join(lastRun(root).dir, "report.md"), "utf8");
    assert.match(report, /blocking src\/two\.js:5: TWO-A two is a string — raised by a and b/);
    assert.match(report, /blocking src\/four\.js:1: FOUR-A four returns 5 — a's test fails/);
    assert.match(report, /lowered src\/one\.js:1 \(b\): ONE-B — raised by 1 reviewer \(b\), two needed/);
    assert.match(report, /b: no valid answer \(its output holds no JSON object \(asked twice\)\)/);
    assert.match(
      report,
      /\| review-decision \| 1 \| ❌ fail \| 2 blocking findings stand: src\/two\.js:5 \(raised by a and b\)/,
    );
  });

  it("fails the gate and the story on an answer that is not JSON", () => {
    const [only] = decisions("US-3");
    assert.equal(only?.verdict, "fail");
    assert.match(
      only?.detail.reason ?? "",
      /no valid answer from b \(its output holds no JSON object \(asked twice\)\)/,
    );
    const asked = calls.filter((c) => c.story === "US-3" && c.name === "b").map((c) => c.prompt);
    assert.equal(asked.length, 2, "asked once more before the story failed");
    assert.match(asked[1] ?? "", /^Your last answer could not be read: its output holds no JSON object\./);
    assert.match(
      readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"),
      /review-decision: no valid answer from b/,
    );
  });

  it("asks a reviewer that printed prose once more, and takes its second answer", () => {
    const [only, ...more] = decisions("US-4");
    assert.equal(more.length, 0);
    assert.equal(only?.verdict, "pass");
    const asked = calls.filter((c) => c.story === "US-4" && c.name === "b").map((c) => c.prompt);
    assert.equal(asked.length, 2);
    assert.match(asked[1] ?? "", /^Your last answer could not be read: its output holds no JSON object\./);
  });

  it("gives every reviewer the same prompt, with no other reviewer's output in it", () => {
    const texts = Object.values(REVIEW_PLAN).flatMap((byReviewer) =>
      Object.values(byReviewer).map((e) => JSON.stringify(e.answer).match(/[A-Z]+-[A-Z]+/)?.[0] ?? ""),
    );
    assert.equal(calls.length, 12, `reviewer calls: ${calls.length}`);
    for (const call of calls) {
      assert.equal(call.role, "review");
      for (const text of texts.filter(Boolean))
        assert.ok(!call.prompt.includes(text), `${call.name} saw ${text}`);
    }
    const stories = (name: string) => [...new Set(calls.filter((c) => c.name === name).map((c) => c.story))];
    assert.deepEqual(stories("a"), stories("b"));
    for (const story of new Set(stories("a"))) {
      // A reviewer asked once more gets its own prompt then; the panel's own prompt is the same for all.
      const prompts = (name: string) =>
        calls
          .filter((c) => c.name === name && c.story === story && !c.prompt.startsWith("Your last answer"))
          .map((c) => c.prompt);
      assert.deepEqual(prompts("a").sort(), prompts("b").sort(), `${story}: a and b got different prompts`);
    }
  });

  it("runs the reviewers concurrently and read-only on the tree", () => {
    for (const a of calls.filter((c) => c.name === "a")) {
      // The b of a's panel run: it was given the very same prompt.
      const b = calls.find((c) => c.name === "b" && c.prompt === a.prompt);
      assert.ok(b, `no b call beside a's on ${a.story}`);
      assert.ok(
        a.start < b.end && b.start < a.end,
        `${a.story}: a ${a.start}-${a.end}, b ${b.start}-${b.end}`,
      );
      assert.ok(a.sawPeer && b.sawPeer, `${a.story}: a and b did not run at the same time`);
    }
    assert.deepEqual(
      calls.filter((c) => c.wrote).map((c) => c.name),
      [],
      "a reviewer wrote into the tree",
    );
  });
});

describe("a review panel naming an unknown agent", () => {
  it("is bad config: exit 2 naming the entry, before anything runs", async () => {
    const config = baseConfig();
    config.review = { panel: [{ agent: "nope" }] };
    const root = makeProject({ stories: [story("US-1")], plan: {}, config });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /review\.panel\[0\]\.agent.*unknown agent "nope"/);
    assert.deepEqual(agentCalls(root), []);
  });
});

describe("a review panel without a sandbox", () => {
  it("fails the story when a reviewer changed the tree it was reviewing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-panel-off-"));
    const config = baseConfig();
    (config.agent as Record<string, unknown>).sandbox = "off";
    config.review = { panel: [{ name: "a", command: `node ${JSON.stringify(REVIEWER)} a` }] };
    const root = makeProject({
      stories: [story("US-1")],
      plan: {
        "US-1": [
          { write: { "src/one.js": "export const one = 1;\n", "test/one.test.js": passingTest("one") } },
        ],
      },
      config,
    });
    const result = await gantry(root, ["run", "--feature", "f"], {
      env: { REVIEW_LOG: join(dir, "reviews.jsonl"), REVIEW_LEAVE_FILE: "1" },
      timeoutMs: 200_000,
    });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(prdStories(root)["US-1"]?.status, "failed");
    assert.match(
      readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"),
      /a review-panel session changed the working tree it was reviewing/,
    );
  });
});
