import assert from "node:assert/strict";
import { readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { Story } from "../../src/prd/story.js";
import type { StoryContext } from "../../src/stages/context.js";
import { guardSession } from "../../src/stages/session-guard.js";
import { silentLogger } from "../../src/util/logger.js";
import { git, runContext } from "../pipeline/run-context.js";

const CONFIG = ".gantry/config.json";

/** A story pass over a fresh repository, with the tamper events it emits. */
async function pass(pass = 2) {
  const { run, root, events } = await runContext([{ id: "US-1", title: "one" }], {
    agent: { sandbox: "off" },
  });
  writeFileSync(join(root, CONFIG), '{ "quality": { "commands": { "test": "node --test" } } }\n');
  git(root, "add", "-A");
  git(root, "commit", "-qm", "config");
  const ctx: StoryContext = {
    run,
    story: run.stories.get("US-1") as Story,
    logger: silentLogger,
    tier: "fast",
    pass,
    baseSha: git(root, "rev-parse", "HEAD").trim(),
    failureHistory: [],
    rectifyAttempts: 0,
    autofixAttempts: 0,
    agentCalls: 0,
    costUsd: 0,
  };
  const tamper = async () => {
    await run.bus.flush();
    return events
      .filter(([type]) => type === "tamper:result")
      .map(([, { at: _, runId: __, ...event }]) => event);
  };
  return { run, root, ctx, tamper };
}

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/**
 * The guard around one agent session: what it records before, what it puts back after, and the verdict
 * it returns: nothing for an untouched session, `fail` (tamper) for what it could put back, `pause` for
 * a HEAD switched or an operation left half done.
 */
describe("session guard", () => {
  it("says nothing about a session that touched only the work", async () => {
    const { root, ctx, tamper } = await pass();
    roots.push(root);
    const guard = await guardSession(ctx, "implement");
    writeFileSync(join(root, "feature.js"), "export const x = 1;\n");
    assert.equal(await guard.finish(), undefined);
    assert.deepEqual(await tamper(), []);
    assert.equal(ctx.ignoredBySessions, undefined, "no ignored source file was made");
  });

  it("puts back an edited config and fails the pass with a tamper verdict naming it, on the tree left", async () => {
    const { run, root, ctx, tamper } = await pass(3);
    roots.push(root);
    const guard = await guardSession(ctx, "rectify");
    const original = readFileSync(join(root, CONFIG), "utf8");
    writeFileSync(join(root, CONFIG), '{ "quality": { "commands": { "test": "true" } } }\n');
    writeFileSync(join(root, "feature.js"), "export const x = 1;\n");
    const result = await guard.finish();
    assert.equal(readFileSync(join(root, CONFIG), "utf8"), original);
    assert.deepEqual(result, {
      action: "fail",
      reason: `tamper: the rectify session changed what judges its work: ${CONFIG}: changed (put back)`,
      tamper: true,
    });
    const judged = await run.git.judge();
    const events = await tamper();
    assert.deepEqual(events, [
      {
        storyId: "US-1",
        role: "rectify",
        verdict: "fail",
        changes: [{ what: `${CONFIG}: changed`, restored: true }],
        judged,
        attempt: 3,
      },
    ]);
    assert.notEqual(judged.tree, "");
  });

  it("puts back a moved branch, and names a change it could not put back without '(put back)'", async () => {
    const { root, ctx, tamper } = await pass();
    roots.push(root);
    const head = git(root, "rev-parse", "HEAD").trim();
    const guard = await guardSession(ctx, "implement");
    git(root, "commit", "-q", "--allow-empty", "-m", "agent's own commit");
    const moved = git(root, "rev-parse", "HEAD").trim();
    git(root, "update-ref", "refs/heads/side", head);
    const result = await guard.finish();
    assert.equal(result?.action, "fail");
    assert.equal(git(root, "rev-parse", "refs/heads/main").trim(), head, "the branch is back");
    const [event] = await tamper();
    const changes = event?.changes as { what: string; restored: boolean }[];
    assert.ok(
      changes.some((c) => c.what.includes("refs/heads/main") && c.restored),
      JSON.stringify(changes),
    );
    assert.ok(
      changes.some((c) => c.what.includes("refs/heads/side")),
      JSON.stringify(changes),
    );
    assert.equal(
      result?.reason,
      `tamper: the implement session changed what judges its work: refs/heads/main moved from ${head.slice(0, 12)} to ${moved.slice(0, 12)} (put back); refs/heads/side created at ${head.slice(0, 12)}`,
    );
  });

  it("pauses the run when HEAD was switched: no later story could be committed on it", async () => {
    const { root, ctx, tamper } = await pass();
    roots.push(root);
    const guard = await guardSession(ctx, "implement");
    git(root, "checkout", "-q", "--detach");
    const result = await guard.finish();
    assert.equal(result?.action, "pause");
    const detached = git(root, "rev-parse", "HEAD").trim();
    assert.equal(
      result?.reason,
      `tamper: the implement session changed what judges its work: HEAD changed from "ref: refs/heads/main" to "${detached}"`,
    );
    assert.equal("tamper" in (result ?? {}), false);
    assert.equal((await tamper()).length, 1);
  });

  it("pauses the run when git was left in the middle of an operation, even with gantry's files put back", async () => {
    const { root, ctx } = await pass();
    roots.push(root);
    const guard = await guardSession(ctx, "implement");
    const head = git(root, "rev-parse", "HEAD").trim();
    writeFileSync(join(root, ".git/MERGE_HEAD"), `${head}\n`);
    writeFileSync(join(root, CONFIG), "{}\n");
    const result = await guard.finish();
    assert.equal(result?.action, "pause");
    assert.match(result?.reason ?? "", /middle of an operation/);
  });

  it("records HEAD alone when even the judge refuses the tree the session left", async () => {
    const { root, ctx, tamper } = await pass();
    roots.push(root);
    const guard = await guardSession(ctx, "implement");
    symlinkSync("/etc/passwd", join(root, "escape"));
    writeFileSync(join(root, CONFIG), "{}\n");
    await guard.finish();
    const [event] = await tamper();
    assert.deepEqual(event?.judged, { sha: git(root, "rev-parse", "HEAD").trim(), tree: "" });
  });
});
