// The live page against a real run of the built CLI (npm run test:serve-live; heavier than npm test's page case).
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startServer } from "../../src/serve/server.js";
import { baseConfig, gantry, makeProject, passingTest, prdStories, story } from "../e2e/harness.js";
import { Browser, chromiumMissing, SHOWN } from "./cdp.js";

if (chromiumMissing) console.log(`# serve live page: skipped: ${chromiumMissing}`);
const SHOTS = process.env.GANTRY_SCREENSHOT_DIR ?? join(tmpdir(), "gantry-serve-screenshots");

const slowModule = (name: string) => ({
  sleepMs: 1500,
  write: {
    [`src/${name}.js`]: `export const ${name} = 2;\n`,
    [`test/${name}.test.js`]: passingTest(
      name,
      `const { ${name} } = await import("../src/${name}.js");\n  assert.equal(${name}, 2);`,
    ),
  },
});

const status = (id: string) => `document.querySelector("#story-${id} .status")?.textContent`;

describe("gantry serve's live page on a real run", { skip: chromiumMissing, timeout: 240_000 }, () => {
  it("shows the stories moving, survives a reload, and a click on the question's button lets the run go on", async () => {
    const root = makeProject({
      stories: [story("US-1", { acceptanceCriteria: [] }), story("US-2"), story("US-3")],
      plan: { "US-1": [slowModule("alpha")], "US-2": [slowModule("beta")], "US-3": [slowModule("gamma")] },
      config: {
        ...baseConfig(),
        interaction: {
          channel: "serve",
          file: { pollMs: 50 },
          triggers: { "story-ambiguity": { timeoutSeconds: 120 } },
        },
      },
    });
    const server = await startServer({ root, host: "127.0.0.1", port: 0, token: "live", pollMs: 100 });
    const browser = await Browser.open();
    mkdirSync(SHOTS, { recursive: true });
    try {
      await browser.navigate(`${server.url}#token=live`);
      const running = gantry(root, ["run", "--feature", "f"]);
      await browser.until(
        `document.querySelector("button.answer[data-action=approve]")`,
        "the question's buttons",
      );
      await browser.until(`${status("US-2")} === "pending"`, "the stories not reached yet");
      const asked = JSON.parse(await browser.eval<string>(SHOWN));
      writeFileSync(join(SHOTS, "serve-1-question.png"), await browser.screenshot());
      assert.match(asked.head, /running \(live\)/);
      assert.equal(asked.questions.length, 1);
      assert.match(asked.rows[0], /^US-1\|Story US-1\|in-progress\|fast\|/);

      await browser.reload();
      await browser.until(
        `document.querySelector("button.answer[data-action=approve]")`,
        "the question again after a reload",
      );
      const reloaded = JSON.parse(await browser.eval<string>(SHOWN));
      assert.deepEqual(reloaded, asked, "a reload mid-run shows the same state");

      await browser.eval(`document.querySelector("button.answer[data-action=approve]").click()`);
      await browser.until(
        `${status("US-1")} === "passed" && ${status("US-2")} === "in-progress"`,
        "US-1 passed and US-2 started",
        120_000,
      );
      writeFileSync(join(SHOTS, "serve-2-moving.png"), await browser.screenshot());
      const result = await running;
      assert.equal(result.code, 0, result.stderr);
      await browser.until(
        `document.querySelector("#run-head")?.textContent.includes("complete")`,
        "the run complete",
      );
      assert.deepEqual(
        Object.values(prdStories(root)).map((s) => s.status),
        ["passed", "passed", "passed"],
      );
      console.log(
        `# screenshots: ${join(SHOTS, "serve-1-question.png")}, ${join(SHOTS, "serve-2-moving.png")}`,
      );
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
