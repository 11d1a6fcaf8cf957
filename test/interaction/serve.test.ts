import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Channel } from "../../src/interaction/broker.js";
import { responseFile } from "../../src/interaction/channels/file.js";
import { createServeChannel } from "../../src/interaction/channels/serve.js";
import { never, request } from "./helpers.js";

/** A terminal that answers `action` after `ms`, and says whether it was stopped first. */
function terminal(action: string, ms: number) {
  const state = { stopped: false };
  const channel: Channel = {
    name: "cli",
    ask: async (_request, signal) => {
      await sleep(ms, undefined, { signal }).catch(() => {
        state.stopped = true;
      });
      return signal.aborted ? { unanswered: "timeout" } : { action, respondedBy: "cli" };
    },
  };
  return { channel, state };
}

describe("serve channel", () => {
  it("takes the server's answer from its file, named serve:<who>", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-serve-channel-"));
    const question = request();
    const channel = createServeChannel({ dir, pollMs: 10 });
    setTimeout(
      () => writeFileSync(responseFile(dir, question.id), '{"action":"retry","respondedBy":"device:phone"}'),
      50,
    );
    assert.deepEqual(await channel.ask(question, never), {
      action: "retry",
      respondedBy: "serve:device:phone",
    });
  });

  it("races the terminal: the first answer wins and the other is stopped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-serve-channel-"));
    const question = request();
    const slow = terminal("skip", 5_000);
    const channel = createServeChannel({ dir, pollMs: 10, terminal: slow.channel });
    setTimeout(
      () => writeFileSync(responseFile(dir, question.id), '{"action":"approve","respondedBy":"page"}'),
      30,
    );
    assert.deepEqual(await channel.ask(question, never), { action: "approve", respondedBy: "serve:page" });
    await sleep(20);
    assert.equal(slow.state.stopped, true, "the terminal's prompt was stopped");

    const quick = terminal("abort", 20);
    const other = request();
    const first = createServeChannel({ dir, pollMs: 10, terminal: quick.channel });
    assert.deepEqual(await first.ask(other, never), { action: "abort", respondedBy: "cli" });
  });
});
