import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { TRIGGERS } from "../../src/config/interaction-schema.js";
import { createBroker } from "../../src/interaction/broker.js";
import { choose, createCliChannel } from "../../src/interaction/channels/cli.js";
import { never, request } from "./helpers.js";

function terminal(isTTY: boolean) {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk) => {
    shown += chunk;
  });
  const warnings: string[] = [];
  const broker = createBroker({
    channel: createCliChannel({ input, output }),
    signal: never,
    warn: (l) => warnings.push(l),
  });
  return { input, broker, shown: () => shown, warnings };
}

describe("cli channel", { timeout: 10_000 }, () => {
  it("shows the question, the options and the timeout; a wrong answer is asked again", async () => {
    const { input, broker, shown } = terminal(true);
    const pending = broker.ask(request({ timeoutMs: 5_000 }));
    setTimeout(() => input.write("maybe\n"), 20);
    setTimeout(() => input.write("3\n"), 60);
    assert.deepEqual(await pending, { action: "retry", respondedBy: "cli" });
    assert.match(shown(), /human-review \(US-1\): US-1 failed at every tier/);
    assert.match(shown(), /1\) approve {2}2\) skip {2}3\) retry {2}4\) abort/);
    assert.match(shown(), /no answer in 5 s takes skip/);
    assert.match(shown(), /expected a number 1-4 or one of/);
  });

  it("nobody answering: the timeout takes the fallback", async () => {
    const { broker } = terminal(true);
    assert.deepEqual(await broker.ask(request({ timeoutMs: 200 })), {
      action: "skip",
      respondedBy: "timeout",
    });
  });

  it("standard input that is not a terminal is not asked: the fallback, with a warning", async () => {
    const { broker, warnings, shown } = terminal(false);
    assert.deepEqual(await broker.ask(request()), { action: "skip", respondedBy: "fallback" });
    assert.equal(shown(), "");
    assert.match(warnings.join("\n"), /standard input is not a terminal/);
  });

  it("reads a number, a name or an unambiguous start of one", () => {
    const options = ["approve", "skip", "retry", "abort"] as const;
    assert.equal(choose("2", [...options]), "skip");
    assert.equal(choose(" Retry ", [...options]), "retry");
    assert.equal(choose("ab", [...options]), "abort");
    assert.equal(choose("a", [...options]), undefined, "approve or abort");
    assert.equal(choose("9", [...options]), undefined);
    assert.equal(choose("", [...options]), undefined);
  });

  it("takes every option of every trigger, by name and by number", () => {
    for (const { actions } of Object.values(TRIGGERS)) {
      actions.forEach((action, i) => {
        assert.equal(choose(action, [...actions]), action);
        assert.equal(choose(String(i + 1), [...actions]), action);
      });
    }
  });
});
