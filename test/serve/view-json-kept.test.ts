import assert from "node:assert/strict";
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RunHub } from "../../src/serve/hub.js";
import { fakeRun, RUN_ID } from "./fake-run.js";

/**
 * The hub keeps each story's JSON until an event touches it and each log line's JSON from when it came: the
 * view it serves must stay byte for byte what JSON.stringify makes of the view made afresh, after any change.
 */
describe("serve: the view made from kept parts is JSON.stringify's of the view", () => {
  it("stays the same bytes as stories change, the log rolls past its 40 lines and stories come from prd.json", () => {
    const run = fakeRun();
    const hub = new RunHub(run.root, { pollMs: 60_000, maxClients: 1 });
    const fresh = () => {
      const view = hub.view(RUN_ID);
      assert.ok(view);
      return JSON.stringify({ ...view, version: hub.watcher(RUN_ID)?.version });
    };
    try {
      assert.equal(hub.viewJson(RUN_ID), fresh());
      const steps: object[] = [
        { type: "stage:enter", storyId: "US-1", stage: "review" },
        {
          type: "agent:end",
          storyId: "US-1",
          role: "implementer",
          agent: "command",
          model: "m",
          tier: "fast",
          costUsd: 0.01234567,
          costBasis: "exact",
        },
        {
          type: "story:start",
          story: { id: "US-2", title: "Zweite — «süß» 🚀", status: "in-progress", attempts: 0 },
          tier: "fast",
        },
        ...Array.from({ length: 45 }, (_, i) => ({ type: "stage:enter", storyId: "US-2", stage: `s${i}` })),
        { type: "gate:verdict", storyId: "US-2", gate: "verify", verdict: "pass", tree: "abc", attempt: 1 },
        { type: "story:complete", story: { id: "US-1", title: "First", status: "passed", attempts: 1 } },
      ];
      for (const event of steps) {
        run.append(event);
        // An answer's read of what was appended, then the poll: the view made at the poll must follow it.
        hub.watcher(RUN_ID)?.readEvents();
        hub.poll();
        assert.equal(hub.viewJson(RUN_ID), fresh(), JSON.stringify(event));
      }
      assert.match(hub.viewJson(RUN_ID) ?? "", /🚀/);
    } finally {
      hub.stop();
    }
  });

  it("between two polls a read gets the view as made since the last poll, whatever answers read meanwhile", () => {
    const run = fakeRun();
    const hub = new RunHub(run.root, { pollMs: 60_000, maxClients: 1 });
    try {
      const before = hub.viewJson(RUN_ID);
      const version = hub.watcher(RUN_ID)?.version ?? 0;
      run.append({ type: "stage:enter", storyId: "US-1", stage: "rectify" });
      hub.watcher(RUN_ID)?.readEvents();
      assert.equal(hub.watcher(RUN_ID)?.version, version + 1, "the answer's read folded the event");
      assert.equal(hub.viewJson(RUN_ID), before, "the same bytes (and tag) until the next poll");
      hub.poll();
      const after = hub.viewJson(RUN_ID) ?? "";
      assert.notEqual(after, before);
      assert.match(after, /"stage":"rectify"/);
      assert.match(after, new RegExp(`"version":${version + 1}}$`));
    } finally {
      hub.stop();
    }
  });

  it("an event that changes nothing the page shows leaves the version and the view as they were", () => {
    const run = fakeRun();
    const hub = new RunHub(run.root, { pollMs: 60_000, maxClients: 1 });
    try {
      const before = hub.viewJson(RUN_ID);
      const version = hub.watcher(RUN_ID)?.version;
      run.append({ type: "verify:start", storyId: "US-1", attempt: 1 });
      run.append({ type: "run:cost-check", spentUsd: 0.1, limitUsd: 5 });
      hub.watcher(RUN_ID)?.readEvents();
      assert.equal(hub.watcher(RUN_ID)?.version, version);
      assert.equal(hub.viewJson(RUN_ID), before);
      run.append({ type: "stage:enter", storyId: "US-1", stage: "review" });
      hub.watcher(RUN_ID)?.readEvents();
      assert.equal(hub.watcher(RUN_ID)?.version, (version ?? 0) + 1, "an event the page shows raises it");
    } finally {
      hub.stop();
    }
  });

  it("keeps a live run's events.jsonl open between reads, and no run's that is not live", () => {
    const run = fakeRun();
    const events = join(run.runDir, "events.jsonl");
    const openOnIt = () =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === events;
        } catch {
          return false;
        }
      }).length;
    const hub = new RunHub(run.root, { pollMs: 60_000, maxClients: 1 });
    try {
      hub.start();
      assert.equal(openOnIt(), 1, "live: kept open");
      const statePath = join(run.runDir, "state.json");
      writeFileSync(
        statePath,
        JSON.stringify({ ...JSON.parse(readFileSync(statePath, "utf8")), status: "paused" }),
      );
      hub.watcher(RUN_ID)?.refresh();
      assert.equal(openOnIt(), 0, "not live: closed");
    } finally {
      hub.stop();
    }
    assert.equal(openOnIt(), 0);
  });
});
