import assert from "node:assert/strict";
import fs, { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadPrd } from "../../src/prd/load.js";
import { StoryStore } from "../../src/prd/story-store.js";
import { RunState, readRunState } from "../../src/runs/run-state.js";
import { placeInOrder, writeInOrder } from "../../src/util/ordered-writes.js";

const work = mkdtempSync(join(tmpdir(), "gantry-ordered-"));
after(() => rmSync(work, { recursive: true, force: true }));

let count = 0;
function setUp() {
  const root = join(work, `case-${++count}`);
  const runDir = join(root, "runs", "r1");
  const feature = join(root, "features", "f");
  mkdirSync(runDir, { recursive: true });
  mkdirSync(feature, { recursive: true });
  const prdPath = join(feature, "prd.json");
  const story = { id: "A", title: "A", acceptanceCriteria: ["a"], status: "pending", passes: false };
  writeFileSync(prdPath, JSON.stringify({ feature: "f", userStories: [story] }));
  const state = new RunState(runDir, { runId: "r1", feature: "f" });
  const stories = new StoryStore(prdPath, loadPrd(prdPath));
  return { runDir, feature, prdPath, state, stories };
}

/** Records the file system calls of a step, in order: data syncs, renames (by target), folder syncs. */
function recordCalls(): { calls: string[]; restore: () => void } {
  const calls: string[] = [];
  const original = { fdatasync: fs.fdatasync, fsync: fs.fsync, renameSync: fs.renameSync };
  fs.fdatasync = ((fd: number, cb: (e: Error | null) => void) => {
    calls.push("datasync");
    original.fdatasync(fd, cb);
  }) as typeof fs.fdatasync;
  fs.fsync = ((fd: number, cb: (e: Error | null) => void) => {
    calls.push(`sync folder ${fs.readdirSync(`/proc/self/fd/${fd}`).join(",")}`);
    original.fsync(fd, cb);
  }) as typeof fs.fsync;
  fs.renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
    calls.push(`rename ${String(to).split("/").slice(-1)[0]}`);
    original.renameSync(from, to);
  }) as typeof fs.renameSync;
  syncBuiltinESMExports();
  return {
    calls,
    restore: () => {
      Object.assign(fs, original);
      syncBuiltinESMExports();
    },
  };
}

describe("writeInOrder: the end of a pass as one durable step", () => {
  it("syncs both contents first, then renames each in order with its folder synced before the next rename", async () => {
    const { runDir, prdPath, state, stories } = setUp();
    const { calls, restore } = recordCalls();
    try {
      await writeInOrder([
        state.stage({ committing: { storyId: "A", subject: "gantry(A): A" } }),
        stories.stage("A", { status: "passed", attempts: 1 }),
      ]);
    } finally {
      restore();
    }
    assert.deepEqual(calls, [
      "datasync",
      "datasync",
      "rename state.json",
      "sync folder state.json",
      "rename prd.json",
      "sync folder prd.json",
    ]);
    assert.deepEqual(readRunState(runDir)?.committing, { storyId: "A", subject: "gantry(A): A" });
    assert.equal(JSON.parse(readFileSync(prdPath, "utf8")).userStories[0].status, "passed");
    assert.deepEqual(readdirSync(runDir), ["state.json"], "no temp file is left");
    // The store knows the file it wrote: no restore, no rewrite at the run's end.
    const restored: string[][] = [];
    const again = new StoryStore(prdPath, loadPrd(prdPath), (c) => restored.push(c));
    again.settle();
    stories.settle();
    assert.deepEqual(restored, []);
  });

  it("placeInOrder resolves with every file in place; the last folder's sync settles after, the next step after it", async () => {
    const { prdPath, state, stories } = setUp();
    const { calls, restore } = recordCalls();
    try {
      const placed = await placeInOrder([
        state.stage({ committing: { storyId: "A", subject: "s" } }),
        stories.stage("A", { status: "passed" }),
      ]);
      assert.equal(JSON.parse(readFileSync(prdPath, "utf8")).userStories[0].status, "passed");
      const next = writeInOrder([stories.stage("A", { attempts: 2 })], { durable: false });
      await placed.synced;
      await next;
      assert.deepEqual(calls, [
        "datasync",
        "datasync",
        "rename state.json",
        "sync folder state.json",
        "rename prd.json",
        "sync folder prd.json",
        "datasync",
        "rename prd.json",
      ]);
    } finally {
      restore();
    }
  });

  it("a write made in full while the step waited on the disk is not put back by the older step", async () => {
    const { runDir, prdPath, state, stories } = setUp();
    const step = writeInOrder([
      state.stage({ committing: { storyId: "A", subject: "s" } }),
      stories.stage("A", { status: "passed" }),
    ]);
    // While the step's data syncs run in the threadpool, a newer write of each (as a parallel worker's).
    state.update({ committing: undefined, status: "paused" });
    stories.update("A", { status: "in-progress" });
    await step;
    assert.equal(readRunState(runDir)?.committing, undefined);
    assert.equal(readRunState(runDir)?.status, "paused");
    assert.equal(JSON.parse(readFileSync(prdPath, "utf8")).userStories[0].status, "in-progress");
    assert.deepEqual(readdirSync(runDir), ["state.json"], "the dropped temp file is removed");
  });

  it("a step that cannot write leaves the files as they were and no temp file; the next step still runs", async () => {
    const { runDir, feature, prdPath, state, stories } = setUp();
    const before = readFileSync(prdPath, "utf8");
    await assert.rejects(
      writeInOrder([
        state.stage({ committing: { storyId: "A", subject: "s" } }),
        { path: join(feature, "missing", "prd.json"), content: "{}\n" },
      ]),
      /ENOENT/,
    );
    assert.equal(readRunState(runDir)?.committing, undefined, "nothing renamed: the marker is not on disk");
    assert.equal(readFileSync(prdPath, "utf8"), before);
    assert.deepEqual(readdirSync(runDir), ["state.json"]);
    await writeInOrder([stories.stage("A", { status: "passed" })]);
    assert.equal(JSON.parse(readFileSync(prdPath, "utf8")).userStories[0].status, "passed");
  });
});
