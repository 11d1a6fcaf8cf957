import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { isFullScan, makeProbe, movesHead, subcommandOf } from "../../bench/cost-probe.js";
import { makeFeatureProject, timeGantry } from "../../bench/feature-project.js";

/**
 * gantry's git work per story, counted from git's own trace: a story (agent session and its tamper check,
 * verify, test-integrity, review, completion, commit) reads the whole working tree a bounded number of
 * times, and starts a bounded number of git programs: every one of them git's plumbing, none a re-reading
 * of the tree that nothing changed.
 */
describe("git work per story", () => {
  const project = makeFeatureProject(3, 100);
  const probe = makeProbe();
  after(() => {
    project.remove();
    probe.remove();
  });

  it("a story reads the whole working tree at most four times and starts at most 40 git programs", async () => {
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
      // The ignored files listed before and after the session, the judge after it and completion's recheck.
      assert.ok(scans(segment).length <= 4, `scans in one story:\n${scans(segment).join("\n")}`);
      const names = segment.map((a) => subcommandOf(a).name);
      assert.ok(segment.length <= 40, `${segment.length} git programs in one story: ${names.join(" ")}`);
      assert.equal(names.filter((n) => n === "commit-tree").length, 1, names.join(" "));
    }
    // The deferred regression after the last commit judges the tree the commit carried: no scan.
    assert.equal(scans(rest).length, 0, scans(rest).join("\n"));
  });
});
