import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { Story } from "../../src/prd/story.js";
import { MAX_SESSION_OUTPUT, runAgentSession } from "../../src/stages/agent-session.js";
import type { StoryContext } from "../../src/stages/context.js";
import { silentLogger } from "../../src/util/logger.js";
import { runContext } from "../pipeline/run-context.js";

const SECRET = "s3cr3t-value-for-the-session-test";
process.env.GANTRY_SESSION_TEST_TOKEN = SECRET;
after(() => {
  delete process.env.GANTRY_SESSION_TEST_TOKEN;
});

describe("agent session output", () => {
  it("is kept in sessions/ under the run directory: its tail, bounded, with secret values redacted; agent:end names it", async () => {
    // The secret is printed first (then cut away with the head) and last (kept, so it must be redacted), on
    // standard error as well as standard output.
    const run = [
      `printf 'first %s\\n' "$GANTRY_SESSION_TEST_TOKEN"`,
      `head -c ${MAX_SESSION_OUTPUT + 1000} /dev/zero | tr '\\0' x`,
      `printf '\\nlast %s\\n' "$GANTRY_SESSION_TEST_TOKEN" >&2`,
    ].join("; ");
    const { run: ctxRun, events } = await runContext([{ id: "US-1", title: "one" }], {
      agent: { default: "command", command: { run }, timeoutSeconds: 30, sandbox: "off" },
    });
    const ctx: StoryContext = {
      run: ctxRun,
      story: ctxRun.stories.get("US-1") as Story,
      logger: silentLogger,
      tier: "fast",
      pass: 1,
      baseSha: "",
      failureHistory: [],
      rectifyAttempts: 0,
      autofixAttempts: 0,
      agentCalls: 0,
      costUsd: 0,
    };
    const outcome = await runAgentSession(ctx, "implement", "do it");
    assert.equal(outcome.kind, "done");
    await ctxRun.bus.flush();
    const end = events.find(([type]) => type === "agent:end")?.[1];
    assert.equal(end?.outputFile, "sessions/US-1-1-implement.log");
    const kept = readFileSync(join(ctxRun.runDir, "sessions/US-1-1-implement.log"), "utf8");
    assert.ok(!kept.includes(SECRET), "no secret value on disk");
    assert.ok(kept.endsWith("\nlast [redacted]\n"), `ends ${JSON.stringify(kept.slice(-40))}`);
    assert.ok(!kept.includes("first "), "the head is cut");
    assert.ok(kept.startsWith("xxx") || kept.startsWith("[… the first"), JSON.stringify(kept.slice(0, 40)));
    assert.ok(kept.length <= MAX_SESSION_OUTPUT + 100, `${kept.length} characters kept`);
  });
});
