import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import github, {
  annotations,
  escapeData,
  escapeProperty,
  fitSummary,
  MAX_ANNOTATIONS,
  SUMMARY_LIMIT,
} from "../../src/reporters/github.js";
import { RunModel } from "../../src/reporters/run-model.js";
import { freshDir, NASTY_TITLE, RUN_ID, runSample } from "./sample-run.js";

/** Undoes the workflow-command escaping, as the runner does. */
const unescapeCommand = (text: string) =>
  text
    .replace(/%0D/g, "\r")
    .replace(/%0A/g, "\n")
    .replace(/%3A/g, ":")
    .replace(/%2C/g, ",")
    .replace(/%25/g, "%");

function parseCommand(line: string) {
  const match = /^::(\w+) ([^:]*)::(.*)$/.exec(line);
  assert.ok(match, `a workflow command: ${line}`);
  const [, kind, props, data] = match as unknown as [string, string, string, string];
  const properties = Object.fromEntries(
    props.split(",").map((p) => {
      const eq = p.indexOf("=");
      return [p.slice(0, eq), unescapeCommand(p.slice(eq + 1))];
    }),
  );
  return { kind, properties, message: unescapeCommand(data) };
}

function summaryFile(initial = "") {
  const file = join(freshDir(), "step-summary.md");
  writeFileSync(file, initial);
  return file;
}

describe("github reporter", () => {
  it("annotates failed and blocked stories with escaped workflow commands and appends the job summary", async () => {
    const file = summaryFile("## An earlier step's summary\n\n");
    const { stdout } = await runSample(
      github,
      {},
      { env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: file } },
    );
    const lines = stdout.text.split("\n");
    assert.equal(lines.pop(), "");
    assert.equal(lines.length, 2, "one line per command: newlines in data are escaped");
    const error = parseCommand(lines[0] as string);
    assert.equal(error.kind, "error");
    assert.deepEqual(error.properties, { title: `US-002 failed: ${NASTY_TITLE.replace("\n", " ")}` });
    assert.equal(
      error.message,
      `${NASTY_TITLE}\nevery tier failed; last: 1 test still failing after 1 rectify attempts`,
    );
    // In the raw line: `%` is %25, the newline %0A, and in the title `:` and `,` are %3A and %2C.
    assert.ok(
      lines[0]?.startsWith(
        '::error title=US-002 failed%3A Apply 10%25 discount code %3A%3A "quoted" <b>&amp;</b>%2C a | b::Apply 10%25 discount%0Acode :: ',
      ),
    );
    const warning = parseCommand(lines[1] as string);
    assert.equal(warning.kind, "warning");
    assert.equal(warning.properties.title, "US-003 blocked: Show receipt");
    assert.equal(warning.message, "blocked: depends on US-002 (failed)");

    const summary = readFileSync(file, "utf8");
    assert.ok(
      summary.startsWith("## An earlier step's summary\n\n## gantry: checkout\n"),
      "appended, not overwritten",
    );
    assert.match(summary, new RegExp(`Run \`${RUN_ID}\` · \\*\\*1 passed · 1 failed · 1 blocked\\*\\*`));
    assert.match(summary, /\| ✅ \| US-001 \| Add cart total \| passed \| 1 \| fast \| 24\.3s \| \$0\.12 \|/);
    assert.match(
      summary,
      /\| ❌ \| US-002 \| Apply 10% discount code :: "quoted" &lt;b&gt;&amp;amp;&lt;\/b&gt;, a \\\| b \| failed \| 2 \| balanced \|/,
    );
    assert.match(summary, /\| ⛔ \| US-003 \| Show receipt \| blocked \| 0 \|/);
    assert.match(summary, /\| verify \| 2 \| ❌ fail \| TEST\\_FAILURE · node-test: 4 passed, 1 failed<br>/);
  });

  it("does nothing outside GitHub Actions", async () => {
    const file = summaryFile();
    const { stdout } = await runSample(github, {}, { env: { GITHUB_STEP_SUMMARY: file } });
    assert.equal(stdout.text, "");
    assert.equal(readFileSync(file, "utf8"), "");
  });

  it("can leave out the summary or the annotations", async () => {
    const file = join(freshDir(), "summary.md");
    const env = { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: file };
    const { stdout } = await runSample(github, { summary: false }, { env });
    assert.equal(stdout.text.split("\n").length, 3);
    assert.equal(existsSync(file), false);
    const quiet = await runSample(github, { annotations: false }, { env });
    assert.equal(quiet.stdout.text, "");
    assert.ok(existsSync(file));
    assert.throws(
      () => github({ summary: "yes" }, {} as never),
      /invalid options: summary: expected boolean/,
    );
  });

  it("escapes workflow-command data and properties", () => {
    assert.equal(escapeData("100%\r\nok"), "100%25%0D%0Aok");
    assert.equal(escapeProperty("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    assert.equal(escapeData("a::b"), "a::b", "`::` in data is harmless once newlines are escaped");
  });

  it("shows at most 10 error annotations: the tenth says how many more failed", () => {
    const model = new RunModel();
    const at = "2026-03-04T05:06:07.000Z";
    for (let i = 1; i <= 14; i++) {
      const story = { id: `US-${i}`, title: `story ${i}`, status: "failed" as const, attempts: 1 };
      model.apply("story:fail", { runId: RUN_ID, at, story, reason: `reason ${i}` });
    }
    model.apply("run:error", {
      runId: RUN_ID,
      at,
      error: { message: "out of disk", code: "GANTRY_E_INTERNAL" },
    });
    const lines = annotations(model).map(parseCommand);
    assert.equal(lines.length, MAX_ANNOTATIONS);
    assert.equal(lines[0]?.message, "out of disk");
    assert.equal(lines[8]?.properties.title, "US-8 failed: story 8");
    assert.equal(lines[9]?.properties.title, "6 more stories failed");
    assert.match(
      lines[9]?.message ?? "",
      /^US-9, US-10, US-11, US-12, US-13, US-14\nGitHub shows 10 error annotations per step/,
    );
  });

  it("keeps the summary file within 1 MiB, cutting at a section with a note", async () => {
    const blocks = Array.from({ length: 50 }, (_, i) => `### section ${i}\n\n${"é".repeat(20_000)}\n`);
    const fitted = fitSummary(blocks, 300_000);
    assert.ok(Buffer.byteLength(fitted) <= 300_000);
    assert.match(fitted, /Summary cut to fit GitHub's 1 MiB limit: 7 of 50 sections shown/);
    assert.ok(fitted.includes("### section 6\n") && !fitted.includes("### section 7\n"));
    const one = fitSummary([`${"€".repeat(100_000)}`], 1000);
    assert.ok(
      Buffer.byteLength(one) <= 1000 && one.includes("0 of 1 sections"),
      "a single huge section is cut too",
    );
    assert.equal(fitSummary(blocks, 100), "", "nothing when not even the note fits");
    assert.equal(fitSummary(["# a\n", "b\n"], 1000), "# a\n\nb\n\n");

    // A step summary already near the limit: what is appended keeps the file within it.
    const file = summaryFile("x".repeat(SUMMARY_LIMIT - 1500));
    await runSample(github, {}, { env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: file } });
    assert.ok(statSync(file).size <= SUMMARY_LIMIT);
    const appended = readFileSync(file, "utf8").slice(SUMMARY_LIMIT - 1500);
    assert.ok(appended.startsWith("## gantry: checkout\n"), appended);
    assert.ok(/Summary cut to fit GitHub's 1 MiB limit: \d of \d+ sections shown/.test(appended), appended);
  });
});
