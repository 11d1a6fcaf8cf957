import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { chaosConfig, chaosProject, moduleWithTest } from "../chaos/project.js";
import { gantry, git, lastRun, prdStories } from "./harness.js";

/**
 * The quick case of `--parallel` in `npm test` (the long ones are parallel*.full.test.ts): two independent
 * stories at once with the sh agent, each merged into the feature branch and judged there; bad
 * `--parallel` and `--shard` values are one line and exit 2 before anything runs.
 */
describe("gantry run --parallel (quick)", () => {
  it("two independent stories run at once, both merge once, nothing is left behind and ledger check passes", async () => {
    const root = chaosProject({
      plan: { A: [{ write: moduleWithTest("ma", 2) }], B: [{ write: moduleWithTest("mb", 2) }] },
      config: chaosConfig({ agent: { sandbox: "off" } }),
    });
    // The plan and log outside the repository, where both worktrees' sessions find them.
    const home = mkdtempSync(join(tmpdir(), "gantry-parallel-quick-"));
    cpSync(join(root, ".agent-plan"), join(home, ".agent-plan"), { recursive: true });
    const run = await gantry(root, ["run", "-f", "f", "--parallel", "2"], {
      env: { SCRIPTED_AGENT_HOME: home },
    });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    const merges = lastRun(root).events.filter((e) => e.type === "story:merge");
    assert.deepEqual(merges.map((e) => `${e.storyId}:${e.outcome}`).sort(), ["A:merged", "B:merged"]);
    const subjects = git(root, "log", "--format=%s");
    for (const id of ["A", "B"]) {
      assert.equal(prdStories(root)[id]?.status, "passed");
      assert.equal(subjects.split("\n").filter((s) => s.startsWith(`gantry(${id}):`)).length, 1);
    }
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
    assert.equal(git(root, "status", "--porcelain"), "");
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout);
  });

  it("a bad --parallel or --shard is one line naming the option and what it expects, exit 2", async () => {
    const root = chaosProject({ plan: { A: [{ write: moduleWithTest("ma", 2) }] } });
    const parallel = await gantry(root, ["run", "-f", "f", "--parallel", "two"]);
    assert.equal(parallel.code, 2);
    assert.match(parallel.stderr, /--parallel.*expected a whole number from 0 to 64, got "two"/);
    const shard = await gantry(root, ["run", "-f", "f", "--shard", "3/2"]);
    assert.equal(shard.code, 2);
    assert.match(shard.stderr, /--shard.*expected i\/K with 1 ≤ i ≤ K ≤ 256, got "3\/2"/);
    assert.equal(existsSync(join(root, ".gantry", "runs")), false, "nothing ran");
  });
});
