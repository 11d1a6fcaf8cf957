import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import markdown from "../../src/reporters/markdown.js";
import { RUN_ID, runSample } from "./sample-run.js";

describe("markdown reporter", () => {
  it("writes report.md: a summary, a row per story, why stories did not pass, and the gate verdicts", async () => {
    const { runDir } = await runSample(markdown);
    const report = readFileSync(join(runDir, "report.md"), "utf8");
    const lines = report.split("\n");
    assert.equal(lines[0], "# gantry: checkout");
    assert.equal(
      lines[2],
      `Run \`${RUN_ID}\` · **1 passed · 1 failed · 1 blocked** · 3 of 3 stories · 1m 35s · $0.33 · exit code 1`,
    );
    assert.ok(lines.includes("| ✅ | US-001 | Add cart total | passed | 1 | fast | 24.3s | $0.12 |"));
    // Markup is shown as text, the pipe does not split the cell, the newline does not end the row.
    assert.ok(
      lines.includes(
        '| ❌ | US-002 | Apply 10% discount code :: "quoted" &lt;b&gt;&amp;amp;&lt;/b&gt;, a \\| b | failed | 2 | balanced | 1m 14s | $0.21 |',
      ),
    );
    assert.ok(lines.includes("| ⛔ | US-003 | Show receipt | blocked | 0 | — | — | — |"));
    assert.ok(lines.includes("- **US-003** (blocked): blocked: depends on US-002 (failed)"));
    assert.ok(lines.includes("| review | 1 | ✅ pass | typecheck ok, lint ok |"));
    const fails = lines.filter((l) => l.startsWith("| verify |") && l.includes("❌ fail"));
    assert.equal(fails.length, 4);
    assert.match(fails[0] ?? "", /TEST\\_FAILURE · node-test: 4 passed, 2 failed<br>test/);
    assert.ok(!report.includes("\u001b"), "escape codes from test output are dropped");
    assert.ok(lines.includes("### US-003 — Show receipt") && lines.includes("No gate verdicts."));
  });

  it("writes to outputFile, relative to the run directory", async () => {
    const { runDir } = await runSample(markdown, { outputFile: "../summary.md" });
    assert.ok(existsSync(join(runDir, "..", "summary.md")));
  });
});
