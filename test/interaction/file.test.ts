import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createBroker } from "../../src/interaction/broker.js";
import { createFileChannel, requestFile, responseFile } from "../../src/interaction/channels/file.js";
import { never, RESPONDER, request } from "./helpers.js";

const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill();
});

function responder(dir: string, who = "second-process", delayMs = 100): ChildProcess {
  const child = spawn(process.execPath, ["-e", RESPONDER, dir, who, String(delayMs)], { stdio: "ignore" });
  children.push(child);
  return child;
}

function setup() {
  const dir = join(mkdtempSync(join(tmpdir(), "gantry-file-channel-")), "interaction");
  const warnings: string[] = [];
  const channel = createFileChannel({ dir, pollMs: 25 });
  const broker = createBroker({ channel, signal: never, warn: (l) => warnings.push(l) });
  return { dir, broker, warnings };
}

describe("file channel", { concurrency: true, timeout: 20_000 }, () => {
  it("writes the request beside the run; a second process answers with <id>.response.json", async () => {
    const { dir, broker } = setup();
    const child = responder(dir);
    const ask = request({ timeoutMs: 8_000 });
    const answer = await broker.ask(ask);
    child.kill();
    assert.deepEqual(answer, { action: "retry", respondedBy: "file:second-process" });
    const written = JSON.parse(readFileSync(requestFile(dir, ask.id), "utf8"));
    assert.deepEqual(written, ask, "the request file holds the whole request");
    assert.ok(existsSync(responseFile(dir, ask.id)));
  });

  it("a responder may take its time: the channel keeps polling until the answer is there", async () => {
    const { dir, broker } = setup();
    const child = responder(dir, "slow-human", 600);
    const answer = await broker.ask(request({ timeoutMs: 8_000, options: ["approve", "skip", "abort"] }));
    child.kill();
    assert.deepEqual(answer, { action: "approve", respondedBy: "file:slow-human" });
  });

  it("without a responder, the timeout takes the fallback", async () => {
    const { dir, broker } = setup();
    const ask = request({ timeoutMs: 300, fallback: "abort" });
    const started = Date.now();
    assert.deepEqual(await broker.ask(ask), { action: "abort", respondedBy: "timeout" });
    assert.ok(Date.now() - started < 2_000);
    assert.ok(existsSync(requestFile(dir, ask.id)), "the request stays for the record");
  });

  it("a response half-written in place is waited for; an action not offered takes the fallback", async () => {
    const { dir, broker, warnings } = setup();
    const torn = request({ timeoutMs: 3_000 });
    const pending = broker.ask(torn);
    await new Promise((r) => setTimeout(r, 50));
    writeFileSync(responseFile(dir, torn.id), '{"action": "sk');
    await new Promise((r) => setTimeout(r, 100));
    writeFileSync(responseFile(dir, torn.id), '{"action": "skip"}');
    assert.deepEqual(await pending, { action: "skip", respondedBy: "file" });

    const wrong = request({ timeoutMs: 3_000 });
    const second = broker.ask(wrong);
    await new Promise((r) => setTimeout(r, 50));
    writeFileSync(responseFile(dir, wrong.id), '{"action": "deploy"}');
    assert.deepEqual(await second, { action: "skip", respondedBy: "fallback" });
    assert.match(warnings.join("\n"), /answered "deploy"/);
  });
});
