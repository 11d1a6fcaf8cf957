import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, it } from "node:test";
import type { FindingView, ReviewDecisionView } from "../../src/serve/review-view.js";
import { startServer } from "../../src/serve/server.js";
import { applyViewPatch, type ViewPatch } from "../../src/serve/view-patch.js";
import type { RunView } from "../../src/serve/view-types.js";
import {
  baseConfig,
  gantry,
  lastRun,
  makeProject,
  passingTest,
  prdStories,
  REPO,
  story,
} from "../e2e/harness.js";
import { Browser, chromiumMissing } from "./cdp.js";
import { call } from "./http.js";

const SHOTS = process.env.GANTRY_SCREENSHOT_DIR ?? join(tmpdir(), "gantry-serve-screenshots");

/** The finished run on the page in headless Chromium: the findings with their basis, markup as text. */
async function showInBrowser(url: string, runId: string): Promise<void> {
  const browser = await Browser.open(1400, 700);
  try {
    await browser.navigate(`${url}#token=${TOKEN}`);
    await browser.until(`document.querySelector('[data-run="${runId}"]')`, "the run in the list");
    await browser.eval(`document.querySelector('[data-run="${runId}"]').click()`);
    await browser.until(
      `document.querySelectorAll("#findings-US-1 tr.finding").length === 3`,
      "the findings",
    );
    const texts = await browser.eval<string[]>(
      `[...document.querySelectorAll("#findings-US-1 tr.finding td.text")].map((td) => td.textContent)`,
    );
    assert.equal(texts[1], INJECTED);
    assert.equal(await browser.eval(`document.querySelectorAll("#run script").length`), 0);
    mkdirSync(SHOTS, { recursive: true });
    writeFileSync(join(SHOTS, "serve-3-findings.png"), await browser.screenshot());
    console.log(`# screenshot: ${join(SHOTS, "serve-3-findings.png")}`);
  } finally {
    await browser.close();
  }
}

/**
 * The review panel's findings on the page's data: a real run of the built CLI with two scripted reviewers
 * (test/e2e/fixtures/fake-reviewer.mjs) watched by the real server, live over its event stream, then read
 * from the finished run's files by a server started after it.
 */
const TOKEN = "findings-token";
const auth = { authorization: `Bearer ${TOKEN}` };
const REVIEWER = join(REPO, "test", "e2e", "fixtures", "fake-reviewer.mjs");
const INJECTED = "<script>window.injected = 1</script> total drops the discount";
const buggy = { file: "src/cart.js", contains: "BUG" };
/** Pass 1 (the cart says BUG): a and b raise one blocker 2 lines apart, a a lone one, b a suggestion. Pass 2: none. */
const REVIEW_PLAN = {
  "US-1": {
    a: {
      when: buggy,
      answer: {
        findings: [
          { file: "src/cart.js", line: 1, severity: "blocking", text: "cart is a string" },
          { file: "src/cart.js", line: 0, severity: "blocking", text: INJECTED },
        ],
      },
    },
    b: {
      when: buggy,
      answer: {
        findings: [
          { file: "b/src/cart.js", line: 3, severity: "blocking", text: "wrong type" },
          { file: "src/cart.js", line: 1, severity: "suggestion", text: "name it total" },
        ],
      },
    },
  },
};
const write = (files: Record<string, string>) => ({ write: files });

const rows = (review: ReviewDecisionView | undefined) =>
  (review?.findings ?? []).map(
    (f: FindingView) =>
      `${f.kind}|${f.reviewers.join("+")}|${f.file}:${f.line}|${f.raisedAs}>${f.severity}|${f.text}|${f.basis}`,
  );
const FIRST = [
  "blocker|a+b|src/cart.js:1|blocking>blocking|cart is a string|corroborated by a and b",
  `lowered|a|src/cart.js:0|blocking>important|${INJECTED}|lowered: raised by 1 reviewer (a), two needed; no failing test`,
  "other|b|src/cart.js:1|suggestion>suggestion|name it total|raised as suggestion; kept as raised",
];

describe("the review panel's findings on gantry serve's page data (built CLI, real server)", {
  timeout: 180_000,
}, () => {
  it("shows every finding with its basis while the run is live, and from the files once it ended", async () => {
    const bin = mkdtempSync(join(tmpdir(), "gantry-findings-bin-"));
    writeFileSync(
      join(bin, "fake-reviewer"),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(REVIEWER)} "$@"\n`,
      { mode: 0o755 },
    );
    const config = baseConfig();
    const quality = config.quality as { commands: Record<string, string> };
    delete quality.commands.lint;
    delete quality.commands.lintFix;
    config.routing = { tiers: ["fast"] };
    config.review = {
      panel: [
        { name: "a", command: "fake-reviewer a b" },
        { name: "b", command: "fake-reviewer b a" },
      ],
    };
    const root = makeProject({
      stories: [story("US-1")],
      plan: {
        "US-1": [
          write({ "src/cart.js": "export const cart = 'BUG';\n", "test/cart.test.js": passingTest("cart") }),
          write({ "src/cart.js": "export const cart = 2;\n" }),
        ],
      },
      config,
      files: { ".review-plan.json": JSON.stringify(REVIEW_PLAN) },
    });

    const server = await startServer({ root, host: "127.0.0.1", port: 0, token: TOKEN, pollMs: 50 });
    const seen: RunView[] = [];
    const stop = new AbortController();
    const reading = (async () => {
      const response = await fetch(`${server.url}api/events`, { headers: auth, signal: stop.signal });
      const reader = (response.body as ReadableStream<Uint8Array>)
        .pipeThrough(new TextDecoderStream())
        .getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          // A whole view, then patches from it (view-patch.ts), each applied as the page does.
          const [, type, data] = /^event: (run|patch)\ndata: (.*)$/m.exec(frame) ?? [];
          if (type === "run") seen.push(JSON.parse(data as string) as RunView);
          const held = seen.at(-1);
          if (type === "patch" && held) {
            const next = structuredClone(held);
            applyViewPatch(
              next as unknown as Record<string, unknown>,
              JSON.parse(data as string) as ViewPatch,
            );
            seen.push(next);
          }
        }
      }
    })().catch(() => {});
    let runId = "";
    try {
      const result = await gantry(root, ["run", "--feature", "f"], {
        env: { PATH: `${bin}:${process.env.PATH}` },
        timeoutMs: 150_000,
      });
      assert.equal(prdStories(root)["US-1"]?.status, "passed", result.stderr);
      runId = basename(lastRun(root).dir);
      await new Promise((r) => setTimeout(r, 300));
      const live = seen.find((v) => v.live && v.stories[0]?.reviews?.length);
      assert.ok(live, `no live frame showed the panel's findings (${seen.length} frames)`);
      assert.deepEqual(rows(live.stories[0]?.reviews?.[0]), FIRST);
    } finally {
      stop.abort();
      await reading;
      await server.close();
    }

    // A server started after the run ended reads the same from the run's files.
    const later = await startServer({ root, host: "127.0.0.1", port: 0, token: TOKEN, pollMs: 50 });
    try {
      const reply = await call(later.port, "GET", `/api/runs/${runId}`, { headers: auth });
      const view = JSON.parse(reply.text) as RunView;
      assert.equal(view.live, false);
      const [first, second, ...more] = view.stories[0]?.reviews ?? [];
      assert.equal(more.length, 0);
      // Rectify works within the pass, so both decisions carry pass 1.
      assert.deepEqual(
        [first?.verdict, first?.attempt, second?.verdict, second?.attempt],
        ["fail", 1, "pass", 1],
      );
      assert.match(first?.reason ?? "", /^1 blocking finding stands: src\/cart\.js:1 \(raised by a and b\)/);
      assert.deepEqual(rows(first), FIRST);
      assert.deepEqual(second?.findings, []);
      if (!chromiumMissing) await showInBrowser(later.url, runId);
    } finally {
      await later.close();
    }
  });
});
