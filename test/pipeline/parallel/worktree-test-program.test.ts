import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { chaosConfig, moduleWithTest, QUICK_CHECK } from "../../chaos/project.js";
import {
  type AgentSession,
  agentCalls,
  gantry,
  git,
  lastRun,
  makeProject,
  prdStories,
  REPO,
  story,
} from "../../e2e/harness.js";

const SCRIPTED = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");

/**
 * A test command run by a path in the tree that git ignores (`.venv/bin/python -m pytest` with no
 * worktreeSetup): the story worktrees do not have it. The story does not start, with a reason naming it and
 * execution.worktreeSetup, rather than spending every tier's sessions on "the test command was not found".
 */
describe("a test program the story worktree does not have (built CLI, --parallel 2)", () => {
  it("fails each story before its first session, naming the program and execution.worktreeSetup", async () => {
    const config = chaosConfig({
      agent: { command: { run: `node ${JSON.stringify(SCRIPTED)}` } },
      quality: { commands: { test: "tool/bin/check tools/check.sh" }, timeoutSeconds: 60 },
    });
    const root = makeProject({
      stories: [story("A"), story("B")],
      plan: {},
      config,
      files: {
        ".gitignore": ".gantry/runs/\n.gantry/lock\n.agent-log.jsonl\n.agent-plan.json\ntool/\n",
        "tools/check.sh": QUICK_CHECK,
        // The project's own runner, installed in an ignored folder of the main checkout only.
        "tool/bin/check": '#!/bin/sh\nexec sh "$@"\n',
      },
    });
    chmodSync(join(root, "tool/bin/check"), 0o755);
    const home = mkdtempSync(join(tmpdir(), "gantry-worktree-program-"));
    const plan: Record<string, AgentSession[]> = {
      A: [{ write: moduleWithTest("ma", 2) }],
      B: [{ write: moduleWithTest("mb", 2) }],
    };
    writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
    const run = await gantry(root, ["run", "-f", "f", "--parallel", "2"], {
      env: { SCRIPTED_AGENT_HOME: home },
    });
    assert.equal(run.code, 1, run.stdout.slice(-2000) + run.stderr.slice(-2000));
    for (const id of ["A", "B"]) {
      const s = prdStories(root)[id] as { status: string; failureReason?: string };
      assert.equal(s.status, "failed");
      assert.equal(
        s.failureReason,
        "quality.commands.test runs tool/bin/check, which the story's worktree does not have (an ignored file is not checked out into a worktree): set execution.worktreeSetup to make it (docs/parallel.md)",
      );
    }
    assert.equal(agentCalls(home).length, 0, "no session was spent");
    assert.equal(lastRun(root).events.filter((e) => e.type === "agent:start").length, 0);
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
  });
});
