import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startServer } from "../../src/serve/server.js";
import type { RunView } from "../../src/serve/view-types.js";
import { moduleWithTest } from "../chaos/project.js";
import { type AgentSession, lastRun, prdStories } from "../e2e/harness.js";
import { call } from "../serve/http.js";
import { scriptedProject } from "../support/scripted-project.js";

/**
 * A story that failed in one run and passes in the next: the second run's reports and the live page count
 * the passes this run gave it (one), not every pass since the story was written (the ledger's numbering).
 */
describe("passes this run, in the reports and the page", () => {
  it("a story that failed two passes in run 1 and passed first time in run 2 shows 1 pass in run 2's report.md, report.html and /api/runs", async () => {
    const project = scriptedProject({
      stories: ["A"],
      execution: { rectify: { enabled: false }, autofix: { enabled: false }, regression: { mode: "off" } },
      extra: { routing: { tiers: ["fast", "balanced"] }, reporters: ["default", "markdown", "html"] },
    });
    const { root } = project;
    const plan: Record<string, AgentSession[]> = {
      A: [
        { write: moduleWithTest("ma", 2, 3) },
        { write: moduleWithTest("ma", 2, 3) },
        { write: moduleWithTest("ma", 3) },
      ],
    };
    const first = await project.run(plan, []);
    assert.equal(first.code, 1, first.stdout.slice(-1500));
    assert.equal(prdStories(root).A?.attempts, 2);
    const second = await project.run(plan, []);
    assert.equal(second.code, 0, second.stdout.slice(-1500));
    assert.equal(prdStories(root).A?.attempts, 3, "the ledger's numbering goes on across runs");
    const { dir } = lastRun(root);
    const markdown = readFileSync(join(dir, "report.md"), "utf8");
    assert.match(markdown, /\| status \| passes \|/);
    assert.match(markdown, /\| A \| [^|]* \| passed \| 1 \|/);
    const html = readFileSync(join(dir, "report.html"), "utf8");
    assert.match(html, /<th class="num">Passes<\/th>/);
    assert.match(html, /<span class="badge passed">passed<\/span><\/td>\n<td class="num">1<\/td>/);
    const server = await startServer({ root, host: "127.0.0.1", port: 0, token: "t" });
    try {
      const runId = dir.split("/").pop() as string;
      const reply = await call(server.port, "GET", `/api/runs/${runId}`, {
        headers: { authorization: "Bearer t" },
      });
      const view = reply.body as unknown as RunView;
      const a = view.stories.find((s) => s.id === "A");
      assert.equal(a?.passes, 1);
      assert.equal(a?.attempts, 3);
    } finally {
      await server.close();
    }
  });
});
