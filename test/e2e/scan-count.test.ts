import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { isFullScan, makeProbe, movesHead, statCheck, subcommandOf } from "../../bench/cost-probe.js";
import { makeFeatureProject, timeGantry } from "../../bench/feature-project.js";

/**
 * gantry's own cost per story in git work, counted by a `git` shim first on PATH: a story (agent, verify,
 * test-integrity, review, completion, commit) reads the whole working tree at most twice (the judge's
 * `add -A` and the ignored-files listing), whatever else it asks git.
 */
describe("scans per story", () => {
  const project = makeFeatureProject(3, 100);
  const probe = makeProbe();
  after(() => {
    project.remove();
    probe.remove();
  });

  it("a story after the first reads the whole working tree at most twice; a run adds at most two", async () => {
    await timeGantry(project, undefined, [], probe.env);
    const commands = probe.gitCommands();
    // One story's work ends with its commit (the compare-and-swap of HEAD): split the log there.
    const stories: string[][][] = [[]];
    for (const args of commands) {
      (stories.at(-1) as string[][]).push(args);
      if (movesHead(args)) stories.push([]);
    }
    const [first, second, third, rest] = stories;
    assert.ok(first && second && third && rest, `three commits in ${commands.length} git commands`);
    const scans = (segment: string[][]) => segment.filter(isFullScan).map((a) => a.join(" "));
    for (const segment of [second, third]) {
      assert.ok(scans(segment).length <= 2, `scans in one story:\n${scans(segment).join("\n")}`);
      // One stat check a story, completion's (review takes the judged tree after the tests without one), is
      // answered in node from the private index's stat data (git/stat-check.ts; that it still sees a change is
      // test/git/stat-check.test.ts and judge-cache's).
      assert.equal(segment.filter(statCheck).length, 0, "the stat checks asked git");
      // Judge 1, its `add` (on a small tree the tree and its diff against HEAD, which also gives
      // test-integrity's changes, are written and read in node: judged-tree-in-node.ts), the commit 1: the
      // compare-and-swap (its tree, commit object and the user's index written in node: committed-tree.ts,
      // commit-object.ts, user-index.ts); the ignored files where folders changed come from the judged index.
      assert.ok(
        segment.length <= 2,
        `${segment.length} git commands in one story (was 4):\n${segment.map((a) => subcommandOf(a).name).join(" ")}`,
      );
    }
    assert.ok(scans(first).length <= 4, `the first story and the run's start:\n${scans(first).join("\n")}`);
    // The deferred regression after the last commit runs no git scan.
    assert.equal(scans(rest).length, 0, scans(rest).join("\n"));
    // Children node forked, split the same way (the commit is one shell running update-ref).
    const perStory: number[] = [0];
    for (const child of probe.children()) {
      perStory[perStory.length - 1] = (perStory.at(-1) as number) + 1;
      if (child.join(" ").includes("update-ref")) perStory.push(0);
    }
    for (const n of perStory.slice(1, 3)) assert.ok(n <= 15, `${n} children in one story (was 21)`);
  });
});
