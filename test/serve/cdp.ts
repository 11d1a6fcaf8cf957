import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { CHROMIUM, chromiumMissing, headlessFlags } from "../support/chromium.js";

export { chromiumMissing };

/**
 * Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages
 * ended by NUL on fds 3 and 4), so no WebSocket client is needed. One page, one session.
 */
/** A DevTools answer: read field by field where it is used. */
// biome-ignore lint/suspicious/noExplicitAny: the protocol's answers are untyped JSON
type Result = any;

export class Browser {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (v: Result) => void; reject: (e: Error) => void }>();
  private sessionId: string | undefined;

  private constructor(private readonly child: ChildProcess) {
    const out = child.stdio[4] as Readable;
    let buffer = "";
    out.setEncoding("utf8");
    out.on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\0"); end >= 0; end = buffer.indexOf("\0")) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        const waiter = message.id !== undefined ? this.waiting.get(message.id) : undefined;
        if (!waiter) continue;
        this.waiting.delete(message.id);
        if (message.error) waiter.reject(new Error(`${message.error.message} (${message.error.code})`));
        else waiter.resolve(message.result);
      }
    });
  }

  static async open(width = 1400, height = 900): Promise<Browser> {
    const child = spawn(
      CHROMIUM,
      [
        ...headlessFlags(mkdtempSync(join(tmpdir(), "gantry-chromium-"))),
        "--remote-debugging-pipe",
        "about:blank",
      ],
      { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"], detached: true },
    );
    const browser = new Browser(child);
    const { targetId } = await browser.send("Target.createTarget", { url: "about:blank" }, false);
    const { sessionId } = await browser.send("Target.attachToTarget", { targetId, flatten: true }, false);
    browser.sessionId = sessionId;
    await browser.send("Page.enable");
    await browser.send("Emulation.setDeviceMetricsOverride", {
      width,
      height,
      deviceScaleFactor: 1,
      mobile: false,
    });
    return browser;
  }

  send(method: string, params: object = {}, inSession = true): Promise<Result> {
    const id = this.next++;
    const message = {
      id,
      method,
      params,
      ...(inSession && this.sessionId ? { sessionId: this.sessionId } : {}),
    };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      (this.child.stdio[3] as Writable).write(`${JSON.stringify(message)}\0`);
      setTimeout(() => {
        if (this.waiting.delete(id)) reject(new Error(`${method}: no answer in 30 s`));
      }, 30_000).unref();
    });
  }

  /** Evaluates an expression in the page and returns its value. */
  async eval<T = unknown>(expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send("Runtime.evaluate", {
      expression,
      returnByValue: true,
      awaitPromise: true,
    });
    if (exceptionDetails)
      throw new Error(`page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value as T;
  }

  /** Polls `expression` until it is truthy; returns its value. */
  async until<T = unknown>(expression: string, what: string, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await this.eval<T>(expression).catch(() => undefined);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`the page never showed ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async navigate(url: string): Promise<void> {
    await this.send("Page.navigate", { url });
  }

  async reload(): Promise<void> {
    await this.send("Page.reload", { ignoreCache: true });
  }

  async screenshot(): Promise<Buffer> {
    const { data } = await this.send("Page.captureScreenshot", { format: "png" });
    return Buffer.from(data, "base64");
  }

  async close(): Promise<void> {
    await this.send("Browser.close", {}, false).catch(() => {});
    const pid = this.child.pid;
    await new Promise((r) => setTimeout(r, 200));
    if (pid !== undefined && this.child.exitCode === null) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {}
    }
  }
}

/** What the page shows of a run, as text: the rows of the stories table and the open questions. */
export const SHOWN = `(() => {
  const rows = [...document.querySelectorAll("#stories tr.story")].map((tr) =>
    [...tr.querySelectorAll("td")].slice(0, 6).map((td) => td.textContent).join("|"));
  const questions = [...document.querySelectorAll("#pending .question")].map((q) => q.dataset.request + ":" +
    [...q.querySelectorAll("button.answer")].map((b) => b.dataset.action).join(","));
  return JSON.stringify({ head: document.querySelector("#run-head")?.textContent ?? "", rows, questions });
})()`;
