import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import html from "../../src/reporters/html.js";
import { CHROMIUM, chromiumMissing, headlessFlags } from "../support/chromium.js";
import { FAILURE_MESSAGE, freshDir, NASTY_TITLE, RUN_ID, runSample, STORIES } from "./sample-run.js";

const skip = chromiumMissing;
if (skip) console.log(`# html reporter: browser checks skipped: ${skip}`);

/** Headless Chromium with nothing that talks to the network; returns what it printed on stdout. */
function chromium(...args: string[]): string {
  const result = spawnSync(CHROMIUM, [...headlessFlags(freshDir("chromium")), ...args], {
    encoding: "utf8",
    timeout: 60_000,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(result.status, 0, `chromium failed: ${result.error ?? result.stderr}`);
  return result.stdout;
}

let loaded: Promise<{ dom: string; png: string }> | undefined;

/**
 * A sample run's report loaded once in headless Chromium for both browser checks: its DOM on stdout and a
 * screenshot (a browser start is seconds of CPU; one load can give both).
 */
function inChromium(): Promise<{ dom: string; png: string }> {
  loaded ??= (async () => {
    const { runDir } = await runSample(html);
    const png = join(freshDir(), "report.png");
    const page = `file://${join(runDir, "report.html")}`;
    const dom = chromium("--window-size=1400,1000", `--screenshot=${png}`, "--dump-dom", page);
    return { dom, png };
  })();
  return loaded;
}

const text = (dom: string) =>
  dom
    .replace(/<style>[\s\S]*?<\/style>/, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

describe("html reporter", () => {
  it("writes a self-contained report.html: no scripts, nothing fetched, everything escaped", async () => {
    const { runDir } = await runSample(html);
    const page = readFileSync(join(runDir, "report.html"), "utf8");
    assert.ok(page.startsWith("<!doctype html>"));
    assert.ok(!/<script|<link|<img|<iframe|@import|url\(|https?:\/\//i.test(page), "nothing external");
    assert.match(page, /Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"/);
    assert.ok(
      !page.includes('"quoted" <b>') && !page.includes("&quot;quoted&quot; <b>"),
      "the title's markup is text",
    );
    assert.ok(
      page.includes("Apply 10% discount\ncode :: &quot;quoted&quot; &lt;b&gt;&amp;amp;&lt;/b&gt;, a | b"),
    );
    assert.ok(!page.includes("\u001b"));
    assert.equal(page.match(/<tr class="story /g)?.length, 3, "one row per story");
  });

  it("opens in headless Chromium and shows every story, its stages and its verdicts", { skip }, async () => {
    const { dom } = await inChromium();
    const shown = text(dom);
    for (const story of STORIES) {
      assert.ok(shown.includes(story.id), `${story.id} is shown`);
      assert.ok(shown.includes(story.status), `${story.status} is shown`);
    }
    assert.ok(shown.includes(NASTY_TITLE.replace("\n", " ")), "the title reads as written");
    assert.ok(dom.includes('<tr class="story failed" id="story-US-002">'));
    assert.equal(dom.match(/<li class="verdict pass">/g)?.length, 2);
    assert.equal(dom.match(/<li class="verdict fail">/g)?.length, 4);
    for (const verdict of ["verify pass pass 1", "review pass pass 1", "verify fail pass 2"])
      assert.ok(shown.includes(verdict), verdict);
    assert.ok(shown.includes("TEST_FAILURE · node-test: 4 passed, 2 failed"));
    assert.ok(
      shown.includes(FAILURE_MESSAGE.replace("\u001b[31m", "").replace("\u001b[39m", "")),
      "failure details, escape codes dropped",
    );
    assert.ok(shown.includes("rectify retry → verify · 9.0s"), "the stage timeline");
    assert.ok(shown.includes("verify fail → rectify · 1.5s"), "a stage by its verdict, then what came next");
    assert.equal(
      dom.match(/<li class="seg fail"[^>]*><span class="stage">verify</g)?.length,
      4,
      "failed verifies",
    );
    assert.ok(dom.includes('<li class="seg pass" style="flex-grow:5" title="verify pass → review in 1.3s">'));
    assert.ok(shown.includes("pass 2 · balanced"));
    assert.ok(shown.includes("$0.21") && shown.includes("$0.33"), "costs");
    assert.ok(shown.includes(RUN_ID));
    assert.equal(dom.match(/<script/g), null, "the browser added nothing either");
  });

  it("renders to a screenshot", { skip }, async () => {
    const { png } = await inChromium();
    const bytes = readFileSync(png);
    assert.equal(bytes.subarray(1, 4).toString(), "PNG");
    assert.ok(bytes.length > 20_000, "not a blank page");
  });
});
