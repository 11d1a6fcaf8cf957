import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withTreeReadOnly } from "../../../src/process/sandbox.js";
import { parseAnswer } from "../../../src/review/panel/answer.js";
import { confirmation } from "../../../src/review/panel/reviewer-test.js";

const ok = '{"findings":[{"file":"src/a.js","line":3,"severity":"blocking","text":"bad"}]}';

describe("a reviewer's answer", () => {
  it("is the whole output, a ```json block or the last JSON line", () => {
    for (const output of [ok, `thinking…\n\`\`\`json\n${ok}\n\`\`\`\ndone`, `log line\n${ok}\n`]) {
      const parsed = parseAnswer(output);
      assert.equal(parsed.ok, true, output);
      if (parsed.ok) assert.equal(parsed.answer.findings[0]?.severity, "blocking");
    }
  });

  it("is missing when empty, not JSON, or not the schema, each with the reason", () => {
    const cases: [string, RegExp][] = [
      ["", /printed nothing/],
      ["LGTM", /no JSON object/],
      ['{"findings":[{"file":"a","line":-1,"severity":"blocking","text":"x"}]}', /\/findings\/0\/line/],
      ['{"findings":[{"file":"a","line":1,"severity":"fatal","text":"x"}]}', /\/findings\/0\/severity/],
      ['{"findings":[],"verdict":"ok"}', /review-answer\.schema\.json/],
      ['{"issues":[]}', /review-answer\.schema\.json/],
    ];
    for (const [output, reason] of cases) {
      const parsed = parseAnswer(output);
      assert.equal(parsed.ok, false, output);
      if (!parsed.ok) assert.match(parsed.problem, reason);
    }
  });
});

describe("a reviewer's test confirms its finding", () => {
  const run = (status: "PASS" | "TEST_FAILURE" | "BUILD_ERROR" | "UNPARSED", failing: string[] = []) => ({
    status,
    parsed: {
      runner: "node-test",
      status: status === "UNPARSED" ? ("UNPARSED" as const) : status,
      executed: 1,
      passed: 0,
      failed: failing.length,
      skipped: 0,
      failures: failing.map((name) => ({ name, message: "x" })),
    },
  });
  it("only when it fails on the story's tree and not at base", () => {
    assert.equal(confirmation(run("TEST_FAILURE", ["t"]), run("PASS")).confirmed, true);
    assert.equal(confirmation(run("TEST_FAILURE", ["t"]), run("BUILD_ERROR")).confirmed, true);
    assert.equal(confirmation(run("TEST_FAILURE", ["t"]), run("TEST_FAILURE", ["t"])).confirmed, false);
    assert.equal(confirmation(run("PASS"), run("PASS")).confirmed, false);
    assert.equal(confirmation(run("UNPARSED"), run("PASS")).confirmed, false);
  });
  it("by the named test when a name is given", () => {
    assert.equal(confirmation(run("TEST_FAILURE", ["other"]), run("PASS"), "t").confirmed, false);
    assert.equal(
      confirmation(run("TEST_FAILURE", ["t"]), run("TEST_FAILURE", ["other"]), "t").confirmed,
      true,
    );
  });
});

describe("the review sandbox", () => {
  it("binds the tree read-only and refuses a wrapper that does not bind it", () => {
    const wrapper = [
      "bwrap",
      "--ro-bind",
      "/",
      "/",
      "--bind",
      "/tmp",
      "/tmp",
      "--bind",
      "/p",
      "/p",
      "--ro-bind",
      "/p/.git",
      "/p/.git",
      "--",
    ];
    const ro = withTreeReadOnly(wrapper, "/p");
    assert.deepEqual(ro.slice(7, 10), ["--ro-bind", "/p", "/p"]);
    assert.deepEqual(ro.slice(4, 7), ["--bind", "/tmp", "/tmp"]);
    assert.throws(() => withTreeReadOnly(wrapper, "/q"), /does not bind \/q/);
  });
});
