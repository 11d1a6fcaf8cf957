import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { moduleWithTest, QUICK_CHECK } from "../chaos/project.js";
import { gantry, git, prdStories } from "../e2e/harness.js";
import { scriptedProject } from "../support/scripted-project.js";

/**
 * A story worktree gets the main checkout's ignored node_modules. The usual `.gitignore` line is
 * `node_modules/`, which matches folders only: a link of that name is a new file to git, so the worktree
 * gets a real folder of links (and with a link, or nothing, the test runner installed there is missing).
 */
describe("story worktrees and the project's node_modules", () => {
  it("a test runner installed in node_modules/ (ignored as `node_modules/`) runs in every story worktree at --parallel 2", async () => {
    const project = scriptedProject({
      quality: {
        commands: {
          test: "sh node_modules/quick-check/check.sh",
          testScoped: "sh node_modules/quick-check/check.sh {{files}}",
        },
        timeoutSeconds: 60,
      },
      files: {
        ".gitignore": "node_modules/\n.gantry/runs/\n.gantry/lock\n.agent-log.jsonl\n.agent-plan.json\n",
        "node_modules/quick-check/check.sh": QUICK_CHECK,
        "node_modules/@scope/lib/index.js": "export const lib = 1;\n",
      },
    });
    const { root } = project;
    assert.equal(git(root, "ls-files", "node_modules"), "", "node_modules is not committed");
    const run = await project.run(
      { A: [{ write: moduleWithTest("ma", 2) }], B: [{ write: moduleWithTest("mb", 3) }] },
      ["--parallel", "2"],
    );
    assert.equal(run.code, 0, run.stdout.slice(-2000) + run.stderr.slice(-2000));
    for (const id of ["A", "B"]) assert.equal(prdStories(root)[id]?.status, "passed");
    // Neither the folder of links nor a link of its own name reached a commit.
    assert.equal(git(root, "ls-tree", "-r", "--name-only", "HEAD", "node_modules"), "");
    assert.equal(git(root, "status", "--porcelain"), "");
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout);
  });
});
