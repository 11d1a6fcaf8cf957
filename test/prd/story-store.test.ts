import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { loadPrd } from "../../src/prd/load.js";
import { StoryStore } from "../../src/prd/story-store.js";

const work = mkdtempSync(join(tmpdir(), "gantry-store-"));
after(() => rmSync(work, { recursive: true, force: true }));

const story = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `Story ${id}`,
  acceptanceCriteria: [`${id} works`],
  status: "pending",
  passes: false,
  custom: { kept: true },
  ...extra,
});

let count = 0;
function setUp(): { path: string; store: StoryStore; restored: string[][] } {
  const dir = join(work, `case-${++count}`);
  mkdirSync(dir);
  const path = join(dir, "prd.json");
  writeFileSync(
    path,
    JSON.stringify({ feature: "f", owner: "me", userStories: [story("A"), story("B"), story("C")] }),
  );
  const restored: string[][] = [];
  const store = new StoryStore(path, loadPrd(path), (changes) => restored.push(changes));
  return { path, store, restored };
}
const read = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const byId = (path: string) =>
  Object.fromEntries(read(path).userStories.map((s: { id: string }) => [s.id, s])) as Record<
    string,
    Record<string, unknown>
  >;
/** An edit by someone else, as an agent or a background process would make it. */
function edit(
  path: string,
  change: (doc: { userStories: Record<string, unknown>[] } & Record<string, unknown>) => void,
) {
  const doc = read(path);
  change(doc);
  writeFileSync(path, JSON.stringify(doc, null, 1));
}

describe("StoryStore: prd.json is written only by gantry during a run", () => {
  test("gantry's own writes keep unknown fields and raw form (no schema defaults added)", () => {
    const { path, store, restored } = setUp();
    store.update("A", { status: "passed", attempts: 1 });
    assert.deepEqual(byId(path).A, { ...story("A"), status: "passed", passes: true, attempts: 1 });
    assert.equal("description" in (byId(path).B ?? {}), false);
    assert.equal(read(path).owner, "me");
    assert.deepEqual(restored, []);
  });

  test("another story marked passed between gantry's writes is reverted at the next write and reported", () => {
    const { path, store, restored } = setUp();
    store.update("A", { status: "in-progress" });
    edit(path, (doc) => {
      const b = doc.userStories[1] as Record<string, unknown>;
      Object.assign(b, { status: "passed", passes: true, attempts: 1, costUsd: 0 });
    });
    store.update("A", { status: "failed", failureReason: "tests fail" });
    assert.deepEqual(byId(path).B, story("B"));
    assert.equal(byId(path).A?.status, "failed");
    assert.equal(store.status("B"), "pending");
    assert.deepEqual(restored, [["B: status, passes, attempts, costUsd edited; restored"]]);
  });

  test("a removed story comes back; an edited title, criteria or top-level field is restored", () => {
    const { path, store, restored } = setUp();
    edit(path, (doc) => {
      doc.userStories.splice(2, 1);
      (doc.userStories[0] as Record<string, unknown>).acceptanceCriteria = [];
      (doc.userStories[1] as Record<string, unknown>).title = "easier";
      doc.owner = "agent";
    });
    store.update("A", { status: "in-progress" });
    assert.deepEqual(
      read(path).userStories.map((s: { id: string }) => s.id),
      ["A", "B", "C"],
    );
    assert.deepEqual(byId(path).C, story("C"));
    assert.equal(byId(path).B?.title, "Story B");
    assert.deepEqual(byId(path).A?.acceptanceCriteria, ["A works"]);
    assert.equal(read(path).owner, "me");
    assert.deepEqual(restored, [
      [
        "A: acceptanceCriteria edited; restored",
        "B: title edited; restored",
        "C: removed; restored",
        "top-level owner edited; restored",
      ],
    ]);
  });

  test("a story added during the run is kept, without the status fields only gantry writes", () => {
    const { path, store, restored } = setUp();
    edit(path, (doc) => {
      doc.userStories.push(
        { id: "D", title: "new one" },
        { id: "E", title: "forged", status: "passed", passes: true },
      );
    });
    store.update("A", { status: "in-progress" });
    store.update("A", { status: "passed" });
    assert.deepEqual(byId(path).D, { id: "D", title: "new one" });
    assert.deepEqual(byId(path).E, { id: "E", title: "forged" });
    assert.deepEqual(restored, [["E: added with status, passes; kept without them"]]);
  });

  test("settle() restores an edit made after gantry's last write; a deleted or garbled file is rewritten", () => {
    const { path, store, restored } = setUp();
    store.update("A", { status: "passed" });
    store.settle();
    assert.deepEqual(restored, [], "nothing to restore: no report");
    edit(path, (doc) => {
      (doc.userStories[0] as Record<string, unknown>).status = "pending";
    });
    store.settle();
    assert.equal(byId(path).A?.status, "passed");
    writeFileSync(path, "{ not json");
    store.settle();
    assert.equal(byId(path).A?.status, "passed");
    rmSync(path);
    store.settle();
    assert.equal(byId(path).C?.status, "pending");
    assert.deepEqual(restored, [
      ["A: status edited; restored"],
      ["the file was not valid JSON; restored"],
      ["the file was deleted; restored"],
    ]);
  });

  test("updateSoon writes while the caller carries on; landed() waits for it; a newer write is never undone", async () => {
    const { path, store, restored } = setUp();
    store.updateSoon("A", { status: "in-progress", attempts: 1 });
    await store.landed();
    assert.equal(byId(path).A?.status, "in-progress");
    assert.equal(byId(path).A?.attempts, 1);
    store.updateSoon("A", { attempts: 2 });
    store.update("A", { status: "failed", failureReason: "no" });
    await store.landed();
    assert.equal(
      byId(path).A?.status,
      "failed",
      "the older write, landing later, did not put its version back",
    );
    assert.equal(byId(path).A?.attempts, 2, "the newer write carried the older one's change");
    store.settle();
    assert.deepEqual(restored, [], "the store knows the file it wrote last");
    assert.deepEqual(
      readdirSync(dirname(path)).filter((n) => n.endsWith(".tmp")),
      [],
      "no temp file left",
    );
  });

  test("landed() throws the error of a write that could not be made", async () => {
    const { path, store } = setUp();
    rmSync(dirname(path), { recursive: true });
    store.updateSoon("A", { attempts: 1 });
    await assert.rejects(store.landed(), /ENOENT/);
  });
});
