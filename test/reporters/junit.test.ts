import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import junit, { renderJunit } from "../../src/reporters/junit.js";
import { RunModel } from "../../src/reporters/run-model.js";
import {
  SUREFIRE_XSD,
  noXmllint as skip,
  validate,
  validateEachSuite,
  xpath,
} from "../support/junit-schemas.js";
import { freshDir, RUN_ID, runSample } from "./sample-run.js";

if (skip) console.log(`# junit reporter: schema checks skipped: ${skip}`);

describe("junit reporter", () => {
  it("the schema itself rejects what JUnit consumers reject", { skip }, () => {
    const file = join(freshDir(), "bad.xml");
    writeFileSync(
      file,
      '<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t"/></testsuite></testsuites>',
    );
    const { ok, output } = validate(file);
    assert.equal(ok, false);
    assert.match(output, /classname/);
    // Surefire's has no timestamp on a suite and no output outside a test case.
    const suite = join(freshDir(), "suite.xml");
    writeFileSync(
      suite,
      '<testsuite name="s" tests="1" failures="0" errors="0" skipped="0" timestamp="2026-03-04T05:06:07"><testcase name="t" time="0"/></testsuite>',
    );
    assert.match(validate(suite, SUREFIRE_XSD).output, /'timestamp' is not allowed/);
  });

  it("writes junit.xml in the run directory: one testsuite per story, one testcase per gate, valid against the JUnit schema", {
    skip,
  }, async () => {
    const { runDir } = await runSample(junit);
    const file = join(runDir, "junit.xml");
    const { ok, output } = validate(file);
    assert.ok(ok, output);
    assert.equal(xpath(file, "string(/testsuites/@tests)"), "6");
    assert.equal(
      xpath(file, "string(/testsuites/@failures)"),
      "2",
      "US-002's verify and outcome; US-001 passed",
    );
    assert.equal(xpath(file, "string(/testsuites/@skipped)"), "1");
    assert.equal(xpath(file, "string(/testsuites/@errors)"), "0");
    assert.equal(xpath(file, "count(/testsuites/testsuite)"), "3");
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[2]/@name)"),
      'US-002: Apply 10% discount code :: "quoted" <b>&amp;</b>, a | b',
      "the title, markup and all, round-trips through the XML escaping",
    );
    assert.equal(xpath(file, "string(/testsuites/testsuite[1]/testcase[1]/@name)"), "verify");
    assert.equal(xpath(file, "string(/testsuites/testsuite[2]/testcase[2]/@name)"), "outcome");
    // Four verify verdicts, all failed, in a story that failed: the latest is the failure, the rest reruns.
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[2]/testcase[1]/failure/@message)"),
      "fail (pass 2): TEST_FAILURE · node-test: 4 passed, 1 failed",
    );
    assert.equal(xpath(file, "count(/testsuites/testsuite[2]/testcase[1]/rerunFailure)"), "3");
    assert.equal(xpath(file, "count(//flakyFailure)"), "0");
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[2]/testcase[1]/rerunFailure[1]/@message)"),
      "fail (pass 1): TEST_FAILURE · node-test: 4 passed, 2 failed",
    );
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[2]/testcase[1]/rerunFailure[1]/stackTrace)"),
      "test/discount.test.ts: applies discount 1: expected 90 to equal 81 <cents> & ]]> red\n" +
        "test/discount.test.ts: applies discount 2: expected 90 to equal 81 <cents> & ]]> red",
    );
    assert.equal(xpath(file, "string(/testsuites/testsuite[2]/testcase[1]/@time)"), "4.936");
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[2]/testcase[@name='outcome']/failure/@message)"),
      "every tier failed; last: 1 test still failing after 1 rectify attempts",
    );
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[3]/testcase/skipped/@message)"),
      "blocked: depends on US-002 (failed)",
    );
    assert.equal(xpath(file, "string(//testsuite[1]/properties/property[@name='tier']/@value)"), "fast");
    const timeline = (suite: number) =>
      xpath(file, `string(//testsuite[${suite}]/testcase[@name='outcome']/system-out)`);
    assert.match(timeline(2), /rectify retry → verify \(9\.0s\)/);
    assert.match(timeline(2), /verify fail → rectify \(1\.5s\)/);
    assert.match(timeline(1), /verify pass → review \(1\.3s\)/);
    assert.equal(
      xpath(file, "string(//testsuite[1]/properties/property[@name='startedAt']/@value)"),
      "2026-03-04T05:06:10",
    );
    const surefire = validateEachSuite(file);
    assert.ok(surefire.ok, surefire.output);
    assert.equal(surefire.suites, 3);
  });

  it("a story that passed after rectify has no <failure>: its failed verdicts are <flakyFailure>s, and failures is 0", {
    skip,
  }, () => {
    const model = new RunModel();
    const at = "2026-03-04T05:06:07.000Z";
    const story = { id: "US-7", title: "Rectified", status: "in-progress" as const, attempts: 0 };
    const verdict = (gate: string, v: "pass" | "fail", n: number) =>
      model.apply("gate:verdict", {
        v: 1,
        runId: RUN_ID,
        at,
        feature: "f",
        storyId: "US-7",
        gate,
        verdict: v,
        sha: "",
        tree: `${n}`,
        attempt: 1,
        detail: {
          status: v === "pass" ? "PASS" : "TEST_FAILURE",
          runner: "node-test",
          passCount: 1,
          failCount: v === "pass" ? 0 : 1,
        },
      });
    model.apply("run:start", { runId: RUN_ID, at, feature: "f", totalStories: 1 });
    model.apply("story:start", { runId: RUN_ID, at, story, tier: "fast" });
    verdict("verify", "fail", 1);
    verdict("verify", "pass", 2);
    verdict("review", "pass", 2);
    model.apply("story:complete", {
      runId: RUN_ID,
      at,
      story: { ...story, status: "passed", attempts: 1 },
      metrics: { durationMs: 1000, costUsd: 0, attempts: 1, tier: "fast", agentCalls: 2 },
    });
    const file = join(freshDir(), "junit.xml");
    writeFileSync(file, renderJunit(model));
    const { ok, output } = validate(file);
    assert.ok(ok, output);
    assert.equal(xpath(file, "count(//failure)"), "0");
    assert.equal(xpath(file, "string(/testsuites/@failures)"), "0");
    assert.equal(xpath(file, "string(/testsuites/testsuite/@failures)"), "0");
    assert.equal(xpath(file, "count(//testcase[@name='verify']/flakyFailure)"), "1");
    assert.equal(
      xpath(file, "string(//testcase[@name='verify']/flakyFailure/@message)"),
      "fail (pass 1): TEST_FAILURE · node-test: 1 passed, 1 failed",
    );
    assert.equal(xpath(file, "string(//testcase[@name='verify']/flakyFailure/@type)"), "fail");
    const surefire = validateEachSuite(file);
    assert.ok(surefire.ok, surefire.output);
  });

  it("both schemas hold Surefire's rerun rules: a flakyFailure needs a type and a stackTrace, after any failure", {
    skip,
  }, () => {
    const wrap = (body: string) =>
      `<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t" classname="c">${body}</testcase></testsuite></testsuites>`;
    const check = (body: string) => {
      const file = join(freshDir(), "case.xml");
      writeFileSync(file, wrap(body));
      const one = join(freshDir(), "suite.xml");
      writeFileSync(
        one,
        `<testsuite name="s" tests="1" failures="0" errors="0" skipped="0"><testcase name="t" time="0">${body}</testcase></testsuite>`,
      );
      const [jenkins, surefire] = [validate(file).ok, validate(one, SUREFIRE_XSD).ok];
      assert.equal(jenkins, surefire, `the two schemas disagree on ${body}`);
      return surefire;
    };
    assert.equal(check('<flakyFailure type="fail"><stackTrace>x</stackTrace></flakyFailure>'), true);
    assert.equal(check('<flakyFailure type="fail"/>'), false, "no stackTrace");
    assert.equal(check("<flakyFailure><stackTrace>x</stackTrace></flakyFailure>"), false, "no type");
    assert.equal(
      check('<flakyFailure type="f"><stackTrace/></flakyFailure><failure type="f"/>'),
      false,
      "failure comes first",
    );
  });

  it("writes to outputFile, relative to the run directory", async () => {
    const { runDir } = await runSample(junit, { outputFile: "reports/ci/gantry.xml" });
    assert.ok(existsSync(join(runDir, "reports", "ci", "gantry.xml")));
    assert.ok(!existsSync(join(runDir, "junit.xml")));
  });

  it("drops characters XML cannot hold and still validates; a run error is an <error>", { skip }, () => {
    const model = new RunModel();
    const at = "2026-03-04T05:06:07.000Z";
    const story = {
      id: "US-9",
      title: "nul\u0000 and lone \ud800 surrogate 😀",
      status: "in-progress" as const,
      attempts: 0,
    };
    model.apply("run:start", { runId: RUN_ID, at, feature: "f", totalStories: 1 });
    model.apply("story:start", { runId: RUN_ID, at, story, tier: "fast" });
    model.apply("gate:verdict", {
      v: 1,
      runId: RUN_ID,
      feature: "f",
      storyId: "US-9",
      gate: "review",
      verdict: "unverified",
      sha: "",
      tree: "",
      at,
      attempt: 1,
      detail: { note: "\u0007bell\ufffe" },
    });
    model.apply("run:error", {
      runId: RUN_ID,
      at,
      error: { message: "disk full \u0001", code: "GANTRY_E_INTERNAL" },
    });
    const file = join(freshDir(), "junit.xml");
    const xml = renderJunit(model);
    writeFileSync(file, xml);
    const { ok, output } = validate(file);
    assert.ok(ok, output);
    assert.ok(xml.includes("nul and lone  surrogate 😀"), "the emoji (a valid pair) stays");
    assert.equal(xpath(file, "string(//testsuite[@name='run']/testcase/error/@message)"), "disk full");
    assert.equal(xpath(file, "string(//testcase[@name='review']/failure/@type)"), "unverified");
    assert.equal(readFileSync(file, "utf8").includes("\u0000"), false);
    const surefire = validateEachSuite(file);
    assert.ok(surefire.ok, surefire.output);
  });
});
