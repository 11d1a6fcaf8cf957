import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { chaosConfig, moduleWithTest, QUICK_CHECK } from "../chaos/project.js";
import { type AgentSession, gantry, git, lastRun, makeProject, prdStories, REPO, story } from "./harness.js";

const AGENT = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");
const support = await sandboxSupport();

/**
 * The quick case of `--parallel` in `npm test` (the long ones are parallel*.full.test.ts): two independent
 * stories at once, each merged into the feature branch and judged there, with one story's agent reaching
 * out of its worktree (blocked under bwrap); the deferred regression once, after the merges. Bad
 * `--parallel` and `--shard` values are one line and exit 2 before anything runs.
 */
describe("gantry run --parallel (quick)", () => {
  it("two stories run at once, both merge once, the deferred regression runs once after, nothing is left behind, ledger check passes", async () => {
    const config = chaosConfig({ agent: { command: { run: `node ${JSON.stringify(AGENT)}` } } });
    const root = makeProject({
      stories: [story("A"), story("B")],
      plan: {},
      config,
      files: { "tools/check.sh": QUICK_CHECK },
    });
    // The plan and log outside the repository, where both worktrees' sessions find them.
    const home = mkdtempSync(join(tmpdir(), "gantry-parallel-quick-"));
    const outside = join(home, "reach.log");
    // A's session tries the main tree, the ref store and the worktrees' folder: the repository is read-only to it.
    const reach = [
      `${join(root, "src/base.js")}`,
      `${join(root, ".git/refs/heads/evil")}`,
      `${join(root, ".git/gantry/worktrees/f/evil")}`,
    ]
      .map(
        (path) =>
          `(echo x >> ${JSON.stringify(path)}) 2>/dev/null && echo wrote >> ${JSON.stringify(outside)} || echo blocked >> ${JSON.stringify(outside)}`,
      )
      .join("; ");
    const plan: Record<string, AgentSession[]> = {
      A: [{ write: moduleWithTest("ma", 2), sh: reach }],
      B: [{ write: moduleWithTest("mb", 2) }],
    };
    writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
    const run = await gantry(root, ["run", "-f", "f", "--parallel", "2"], {
      env: { SCRIPTED_AGENT_HOME: home },
    });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const events = lastRun(root).events;
    const merges = events.filter((e) => e.type === "story:merge");
    assert.deepEqual(merges.map((e) => `${e.storyId}:${e.outcome}`).sort(), ["A:merged", "B:merged"]);
    // Both branched from the same tip. The first to merge finds the branch where it left it: its merged tree
    // is its worktree's, judged there (one verify). The second's merged tree holds the first's work too: a
    // different tree, judged again (a second verify, on the tree committed).
    const verifies = (id: unknown) =>
      events
        .filter((e) => e.type === "verify:result" && e.storyId === id)
        .map((e) => (e.judged as { tree?: string } | undefined)?.tree);
    const [first, second] = merges;
    assert.deepEqual(verifies(first?.storyId), [first?.tree]);
    const again = verifies(second?.storyId);
    assert.equal(again.length, 2);
    assert.notEqual(again[0], second?.tree);
    assert.equal(again[1], second?.tree);
    const deferred = events.filter((e) => e.type === "verify:result" && e.strategy === "deferred-regression");
    assert.equal(deferred.length, 1);
    const types = events.map((e) => (e.strategy === "deferred-regression" ? "deferred" : e.type));
    assert.ok(types.indexOf("deferred") > types.lastIndexOf("story:merge"), "after the last merge");
    const subjects = git(root, "log", "--format=%s");
    for (const id of ["A", "B"]) {
      assert.equal(prdStories(root)[id]?.status, "passed");
      assert.equal(subjects.split("\n").filter((s) => s.startsWith(`gantry(${id}):`)).length, 1);
    }
    if (support.works) {
      assert.deepEqual(readFileSync(outside, "utf8").trim().split("\n"), ["blocked", "blocked", "blocked"]);
      assert.equal(readFileSync(join(root, "src/base.js"), "utf8"), "export const base = 1;\n");
    } else console.log(`# the sandboxed half skipped: ${support.reason}`);
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
    assert.equal(git(root, "status", "--porcelain"), "");
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout);
  });

  it("a bad --parallel or --shard is one line naming the option and what it expects, exit 2", async () => {
    const root = makeProject({ stories: [story("A")], plan: {} });
    const parallel = await gantry(root, ["run", "-f", "f", "--parallel", "two"]);
    assert.equal(parallel.code, 2);
    assert.match(parallel.stderr, /--parallel.*expected a whole number from 0 to 64, got "two"/);
    const shard = await gantry(root, ["run", "-f", "f", "--shard", "3/2"]);
    assert.equal(shard.code, 2);
    assert.match(shard.stderr, /--shard.*expected i\/K with 1 ≤ i ≤ K ≤ 256, got "3\/2"/);
    assert.equal(existsSync(join(root, ".gantry", "runs")), false, "nothing ran");
  });
});
