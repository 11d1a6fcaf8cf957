import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { TRIGGERS } from "../../src/config/interaction-schema.js";
import { startServer } from "../../src/serve/server.js";
import { Browser, chromiumMissing } from "./cdp.js";
import { fakeRun } from "./fake-run.js";

if (chromiumMissing) console.log(`# serve page, every answer: skipped: ${chromiumMissing}`);

describe("every option of every trigger, pressed on the page", {
  skip: chromiumMissing,
  timeout: 120_000,
}, () => {
  it("is taken by the server and written as the run's answer", async () => {
    const run = fakeRun();
    const server = await startServer({ root: run.root, host: "127.0.0.1", port: 0, token: "t", pollMs: 50 });
    const browser = await Browser.open();
    const pressed: string[] = [];
    try {
      await browser.navigate(`${server.url}#token=t`);
      // The fake run's own question first, so each new one below is the only one shown.
      await browser.until(`document.querySelector("button.answer")`, "the first question");
      run.append({
        type: "interaction:response",
        id: run.requestId,
        trigger: "review-gate",
        action: "approve",
        respondedBy: "test",
      });
      await browser.until(`!document.querySelector("button.answer")`, "the first question gone");
      for (const [trigger, { actions }] of Object.entries(TRIGGERS)) {
        for (const action of actions) {
          const id = randomUUID();
          const request = {
            id,
            trigger,
            storyId: "US-1",
            summary: `${trigger} asks`,
            options: [...actions],
            timeoutMs: 60_000,
            fallback: actions[0],
          };
          writeFileSync(join(run.runDir, "interaction", `${id}.request.json`), JSON.stringify(request));
          run.append({ type: "interaction:request", ...request });
          const button = `document.querySelector('button.answer[data-action="${action}"]')`;
          await browser.until(button, `${trigger}'s ${action} button`);
          await browser.eval(`${button}.click()`);
          await browser.until(
            `document.getElementById("notice").textContent.startsWith("200")`,
            `${trigger} ${action} taken`,
          );
          const response = join(run.runDir, "interaction", `${id}.response.json`);
          assert.ok(existsSync(response), `${trigger} ${action}: no answer written`);
          assert.equal(JSON.parse(readFileSync(response, "utf8")).action, action);
          pressed.push(`${trigger}:${action}`);
          run.append({ type: "interaction:response", id, trigger, action, respondedBy: "page" });
          await browser.eval(`document.getElementById("notice").textContent = ""`);
          await browser.until(`!document.querySelector("button.answer")`, `${trigger} answered`);
        }
      }
    } finally {
      await browser.close();
      await server.close();
    }
    const every = Object.entries(TRIGGERS).flatMap(([t, { actions }]) => actions.map((a) => `${t}:${a}`));
    assert.deepEqual(pressed, every);
    assert.ok(pressed.includes("story-readiness:fix") && pressed.includes("story-readiness:continue"));
  });
});
