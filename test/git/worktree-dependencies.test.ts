import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { chaosConfig, moduleWithTest, QUICK_CHECK } from "../chaos/project.js";
import { type AgentSession, gantry, git, makeProject, prdStories, REPO, story } from "../e2e/harness.js";

const AGENT = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");

/**
 * A story worktree gets the main checkout's ignored node_modules. The usual `.gitignore` line is
 * `node_modules/`, which matches folders only: a link of that name is a new file to git, so the worktree
 * gets a real folder of links (and with a link, or nothing, the test runner installed there is missing).
 */
describe("story worktrees and the project's node_modules", () => {
  it("a test runner installed in node_modules/ (ignored as `node_modules/`) runs in every story worktree at --parallel 2", async () => {
    const config = chaosConfig({
      agent: { command: { run: `node ${JSON.stringify(AGENT)}` } },
      quality: {
        commands: {
          test: "sh node_modules/quick-check/check.sh",
          testScoped: "sh node_modules/quick-check/check.sh {{files}}",
        },
        timeoutSeconds: 60,
      },
    });
    const root = makeProject({
      stories: [story("A"), story("B")],
      plan: {},
      config,
      files: {
        ".gitignore": "node_modules/\n.gantry/runs/\n.gantry/lock\n.agent-log.jsonl\n.agent-plan.json\n",
        "node_modules/quick-check/check.sh": QUICK_CHECK,
        "node_modules/@scope/lib/index.js": "export const lib = 1;\n",
      },
    });
    assert.equal(git(root, "ls-files", "node_modules"), "", "node_modules is not committed");
    const home = mkdtempSync(join(tmpdir(), "gantry-worktree-deps-"));
    const plan: Record<string, AgentSession[]> = {
      A: [{ write: moduleWithTest("ma", 2) }],
      B: [{ write: moduleWithTest("mb", 3) }],
    };
    writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
    const run = await gantry(root, ["run", "-f", "f", "--parallel", "2"], {
      env: { SCRIPTED_AGENT_HOME: home },
    });
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
