import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openRepo } from "../../src/git/repo.js";
import { isResumable, previousRun, reconcile } from "../../src/pipeline/resume.js";
import { RunState } from "../../src/runs/run-state.js";
import { git, gitRepo } from "./run-context.js";

const PRD = ".gantry/features/f/prd.json";
const prd = (status: string) =>
  `${JSON.stringify({ feature: "f", userStories: [{ id: "US-1", title: "one", description: "", acceptanceCriteria: ["a"], status, passes: status === "passed" }] }, null, 2)}\n`;
const statusIn = (root: string) => JSON.parse(readFileSync(join(root, PRD), "utf8")).userStories[0].status;

/** A previous run of feature `f` killed while committing US-1 with `subject`. */
function killedWhileCommitting(root: string, runId: string, subject: string, tree?: string): RunState {
  const runDir = join(root, ".gantry", "runs", runId);
  mkdirSync(runDir, { recursive: true });
  const state = new RunState(runDir, { runId, feature: "f" });
  state.update({ committing: { storyId: "US-1", subject, ...(tree ? { tree } : {}) }, currentStory: "US-1" });
  return state;
}

/** The tree the working tree would commit now (what the verdicts judged). */
function treeNow(root: string): string {
  git(root, "add", "-A");
  const tree = git(root, "write-tree").trim();
  git(root, "reset", "-q");
  return tree;
}

describe("resume", () => {
  it("a commit that landed before the run was killed stands", async () => {
    const root = gitRepo({ [PRD]: prd("pending") });
    killedWhileCommitting(root, "20260101-000000-aaaa", "gantry(US-1): one");
    writeFileSync(join(root, PRD), prd("passed"));
    writeFileSync(join(root, "one.js"), "export const one = 1;\n");
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "gantry(US-1): one");
    const previous = previousRun(root, "f");
    const notes = await reconcile(previous, await openRepo(root), join(root, PRD));
    assert.deepEqual(notes, ["US-1: its commit landed before the previous run stopped"]);
    assert.equal(statusIn(root), "passed");
  });

  it("a landed commit counts only when it holds the judged tree", async () => {
    for (const [extra, expected] of [
      [false, "passed"],
      [true, "pending"],
    ] as const) {
      const root = gitRepo({ [PRD]: prd("pending") });
      writeFileSync(join(root, PRD), prd("passed"));
      writeFileSync(join(root, "one.js"), "export const one = 1;\n");
      killedWhileCommitting(root, "20260101-000000-aaaa", "gantry(US-1): one", treeNow(root));
      if (extra) writeFileSync(join(root, "unjudged.js"), "export const sneaked = 1;\n");
      git(root, "add", "-A");
      git(root, "commit", "-q", "-m", "gantry(US-1): one");
      const notes = await reconcile(previousRun(root, "f"), await openRepo(root), join(root, PRD));
      assert.equal(statusIn(root), expected, `with an unjudged file: ${extra}`);
      assert.match(notes[0] ?? "", extra ? /will run again/ : /its commit landed/);
    }
  });

  it("a story marked passed whose commit never landed goes back to pending; its work stays in the tree", async () => {
    const root = gitRepo({ [PRD]: prd("pending") });
    killedWhileCommitting(root, "20260101-000000-aaaa", "gantry(US-1): one");
    writeFileSync(join(root, PRD), prd("passed"));
    writeFileSync(join(root, "one.js"), "export const one = 1;\n");
    const notes = await reconcile(previousRun(root, "f"), await openRepo(root), join(root, PRD));
    assert.deepEqual(notes, ["US-1: the previous run stopped before committing it; it will run again"]);
    assert.equal(statusIn(root), "pending");
    assert.equal(readFileSync(join(root, "one.js"), "utf8"), "export const one = 1;\n");
  });

  it("the newest run of the feature is the previous one; only an unfinished run is resumable", async () => {
    const root = gitRepo({ [PRD]: prd("pending") });
    assert.equal(previousRun(root, "f"), undefined);
    assert.equal(isResumable(undefined), false);
    killedWhileCommitting(root, "20260101-000000-aaaa", "gantry(US-1): one").update({ status: "complete" });
    const newer = killedWhileCommitting(root, "20260102-000000-bbbb", "gantry(US-1): one");
    newer.update({ committing: undefined, status: "paused" });
    const previous = previousRun(root, "f");
    assert.equal(previous?.runId, "20260102-000000-bbbb");
    assert.equal(isResumable(previous), true);
    assert.deepEqual(
      await reconcile(previous, await openRepo(root), join(root, PRD)),
      [],
      "nothing in flight",
    );
    newer.update({ status: "complete" });
    assert.equal(isResumable(previousRun(root, "f")), false);
    assert.equal(previousRun(root, "other"), undefined);
  });
});
