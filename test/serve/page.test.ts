import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startServer } from "../../src/serve/server.js";
import { Browser, chromiumMissing, SHOWN } from "./cdp.js";
import { fakeRun, INJECTED, panelDecision, RUN_ID } from "./fake-run.js";

/** Each finding row of US-1 as text: reviewers|where|severity|text|basis. */
const FINDINGS = `JSON.stringify([...document.querySelectorAll("#findings-US-1 tr.finding")].map((tr) =>
  [...tr.querySelectorAll("td")].map((td) => td.textContent).join("|")))`;

if (chromiumMissing) console.log(`# serve page: browser checks skipped: ${chromiumMissing}`);

describe("gantry serve's page in headless Chromium", { skip: chromiumMissing, timeout: 60_000 }, () => {
  it("shows a live run from its files, keeps it across a reload, and a click answers the question once", async () => {
    const run = fakeRun();
    const server = await startServer({
      root: run.root,
      host: "127.0.0.1",
      port: 0,
      token: "page-token",
      pollMs: 50,
    });
    const browser = await Browser.open();
    let closed = false;
    try {
      await browser.navigate(`${server.url}#token=page-token`);
      await browser.until(
        `document.querySelector("#story-US-1 .stage")?.textContent === "verify"`,
        "US-1 in verify",
      );
      const before = JSON.parse(await browser.eval<string>(SHOWN));
      assert.match(before.head, new RegExp(`${RUN_ID} — f — running \\(live\\)`));
      assert.deepEqual(before.rows, [
        "US-1|First|in-progress|fast|1|verify",
        "US-2|Second <b>bold</b>|pending||0|",
      ]);
      assert.deepEqual(before.questions, [`${run.requestId}:approve,skip,abort`]);
      assert.equal(
        await browser.eval(`document.querySelectorAll("#stories b").length`),
        0,
        "a title is text, not markup",
      );

      run.append({ type: "stage:enter", storyId: "US-1", stage: "review" });
      await browser.until(
        `document.querySelector("#story-US-1 .stage")?.textContent === "review"`,
        "US-1 moving to review",
      );
      await browser.reload();
      await browser.until(
        `document.querySelector("#story-US-1 .stage")?.textContent === "review"`,
        "the same state after a reload",
      );
      const after = JSON.parse(await browser.eval<string>(SHOWN));
      assert.deepEqual(after.rows, ["US-1|First|in-progress|fast|1|review", before.rows[1]]);
      assert.deepEqual(after.questions, before.questions);

      // The panel's findings, each with its basis; a finding's text is a model's and must stay text.
      run.append(panelDecision());
      await browser.until(
        `document.querySelectorAll("#findings-US-1 tr.finding").length === 3`,
        "US-1's three panel findings",
      );
      assert.deepEqual(JSON.parse(await browser.eval<string>(FINDINGS)), [
        "a, b|src/cart.ts:10|blocking|total ignores the discount|corroborated by a and b",
        `a|src/ui.ts:4|blocking → important|${INJECTED}|lowered: raised by 1 reviewer (a), two needed; no failing test`,
        "b|src/ui.ts:9|suggestion|rename it|raised as suggestion; kept as raised",
      ]);
      assert.deepEqual(
        await browser.eval(
          `[document.scripts.length, document.querySelectorAll("#run img, #run script").length, window.injected === undefined]`,
        ),
        [1, 0, true],
        "the finding's markup is shown as text: no element made, no script run",
      );
      assert.match(
        await browser.eval<string>(`document.querySelector("#findings-US-1 .decision-head").textContent`),
        /^review-decision fail @1 tree c{10}: 1 blocking finding stands/,
      );

      await browser.eval(`document.querySelector('button.answer[data-action="skip"]').click()`);
      const response = join(run.runDir, "interaction", `${run.requestId}.response.json`);
      await browser.until(
        `document.getElementById("notice").textContent.startsWith("200")`,
        "the answer taken",
      );
      assert.ok(existsSync(response));
      assert.deepEqual(JSON.parse(readFileSync(response, "utf8")), { action: "skip", respondedBy: "page" });
      await browser.eval(`document.querySelector('button.answer[data-action="approve"]').click()`);
      await browser.until(
        `document.getElementById("notice").textContent.startsWith("409")`,
        "a second answer refused",
      );

      // A press that gets no answer (here the server is gone) says so rather than nothing.
      await server.close();
      closed = true;
      await browser.until(`document.body.dataset.connected === "no"`, "the stream lost");
      await browser.eval(`document.querySelector('button.answer[data-action="approve"]').click()`);
      await browser.until(
        `document.getElementById("notice").textContent.startsWith("no answer from the server (")`,
        "a press with no answer said so",
      );
    } finally {
      await browser.close();
      if (!closed) await server.close();
    }
  });
});
