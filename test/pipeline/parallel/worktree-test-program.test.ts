import assert from "node:assert/strict";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { moduleWithTest } from "../../chaos/project.js";
import { agentCalls, git, lastRun, prdStories } from "../../e2e/harness.js";
import { scriptedProject } from "../../support/scripted-project.js";

/**
 * A test command run by a path in the tree that git ignores (`.venv/bin/python -m pytest` with no
 * worktreeSetup): the story worktrees do not have it. The story does not start, with a reason naming it and
 * execution.worktreeSetup, rather than spending every tier's sessions on "the test command was not found".
 */
describe("a test program the story worktree does not have (built CLI, --parallel 2)", () => {
  it("fails each story before its first session, naming the program and execution.worktreeSetup", async () => {
    const project = scriptedProject({
      quality: { commands: { test: "tool/bin/check tools/check.sh" }, timeoutSeconds: 60 },
      files: {
        ".gitignore": ".gantry/runs/\n.gantry/lock\n.agent-log.jsonl\n.agent-plan.json\ntool/\n",
        // The project's own runner, installed in an ignored folder of the main checkout only.
        "tool/bin/check": '#!/bin/sh\nexec sh "$@"\n',
      },
    });
    const { root, home } = project;
    chmodSync(join(root, "tool/bin/check"), 0o755);
    const run = await project.run(
      { A: [{ write: moduleWithTest("ma", 2) }], B: [{ write: moduleWithTest("mb", 2) }] },
      ["--parallel", "2"],
    );
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
