import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import junit, { renderJunit } from "../../src/reporters/junit.js";
import { RunModel } from "../../src/reporters/run-model.js";
import { freshDir, RUN_ID, runSample } from "./sample-run.js";

const XSD = new URL("../fixtures/junit.xsd", import.meta.url).pathname;
const XMLLINT = spawnSync("xmllint", ["--version"]).error ? undefined : "xmllint";
const skip = XMLLINT ? false : "xmllint is not installed (Debian package libxml2-utils)";
if (skip) console.log(`# junit reporter: schema checks skipped: ${skip}`);

function validate(file: string): { ok: boolean; output: string } {
  const r = spawnSync("xmllint", ["--noout", "--schema", XSD, file], { encoding: "utf8" });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}
const xpath = (file: string, expr: string) =>
  execFileSync("xmllint", ["--xpath", expr, file], { encoding: "utf8" }).trim();

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
  });

  it("writes junit.xml in the run directory: one testsuite per story, one testcase per verdict, valid against the JUnit schema", {
    skip,
  }, async () => {
    const { runDir } = await runSample(junit);
    const file = join(runDir, "junit.xml");
    const { ok, output } = validate(file);
    assert.ok(ok, output);
    assert.equal(xpath(file, "string(/testsuites/@tests)"), "9");
    assert.equal(xpath(file, "string(/testsuites/@failures)"), "5");
    assert.equal(xpath(file, "string(/testsuites/@skipped)"), "1");
    assert.equal(xpath(file, "string(/testsuites/@errors)"), "0");
    assert.equal(xpath(file, "count(/testsuites/testsuite)"), "3");
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[2]/@name)"),
      'US-002: Apply 10% discount code :: "quoted" <b>&amp;</b>, a | b',
      "the title, markup and all, round-trips through the XML escaping",
    );
    assert.equal(xpath(file, "string(/testsuites/testsuite[1]/testcase[1]/@name)"), "verify (pass 1)");
    assert.equal(xpath(file, "string(/testsuites/testsuite[2]/testcase[2]/@name)"), "verify (pass 1) #2");
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[2]/testcase[1]/failure/@message)"),
      "fail: TEST_FAILURE · node-test: 4 passed, 2 failed",
    );
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[2]/testcase[1]/failure)"),
      "test/discount.test.ts: applies discount 1: expected 90 to equal 81 <cents> & ]]> red\n" +
        "test/discount.test.ts: applies discount 2: expected 90 to equal 81 <cents> & ]]> red",
    );
    assert.equal(xpath(file, "string(/testsuites/testsuite[2]/testcase[1]/@time)"), "1.234");
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[2]/testcase[@name='outcome']/failure/@message)"),
      "every tier failed; last: 1 test still failing after 1 rectify attempts",
    );
    assert.equal(
      xpath(file, "string(/testsuites/testsuite[3]/testcase/skipped/@message)"),
      "blocked: depends on US-002 (failed)",
    );
    assert.equal(xpath(file, "string(//testsuite[1]/properties/property[@name='tier']/@value)"), "fast");
    assert.match(xpath(file, "string(//testsuite[2]/system-out)"), /rectify → retry from verify \(9\.0s\)/);
    assert.equal(xpath(file, "string(//testsuite[1]/@timestamp)"), "2026-03-04T05:06:10");
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
    model.apply("run:error", { runId: RUN_ID, at, error: { message: "disk full \u0001", code: "INTERNAL" } });
    const file = join(freshDir(), "junit.xml");
    const xml = renderJunit(model);
    writeFileSync(file, xml);
    const { ok, output } = validate(file);
    assert.ok(ok, output);
    assert.ok(xml.includes("nul and lone  surrogate 😀"), "the emoji (a valid pair) stays");
    assert.equal(xpath(file, "string(//testsuite[@name='run']/testcase/error/@message)"), "disk full");
    assert.equal(xpath(file, "string(//testcase[@name='review (pass 1)']/failure/@type)"), "unverified");
    assert.equal(readFileSync(file, "utf8").includes("\u0000"), false);
  });
});
