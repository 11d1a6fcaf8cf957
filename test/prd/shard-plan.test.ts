import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseShard, planShards } from "../../src/prd/shard-plan.js";
import type { Prd } from "../../src/prd/story.js";

const prd = (stories: { id: string; dependencies?: string[]; complexity?: string; status?: string }[]) =>
  ({
    feature: "f",
    userStories: stories.map((s) => ({
      id: s.id,
      title: s.id,
      description: "",
      acceptanceCriteria: ["works"],
      dependencies: s.dependencies ?? [],
      status: s.status ?? "pending",
      passes: s.status === "passed",
      ...(s.complexity ? { routing: { complexity: s.complexity } } : {}),
    })),
  }) as unknown as Prd;

describe("planShards", () => {
  it("keeps a dependency chain on one shard and balances the groups by size", () => {
    const shards = planShards(
      prd([
        { id: "A", complexity: "expert" },
        { id: "B", dependencies: ["A"], complexity: "simple" },
        { id: "C", complexity: "complex" },
        { id: "D", complexity: "simple" },
        { id: "E", dependencies: ["D"], complexity: "simple" },
        { id: "F", complexity: "medium" },
      ]),
      3,
    );
    assert.deepEqual(
      shards.map((s) => [s.shard, s.stories, s.size]),
      [
        ["1/3", ["A", "B"], 6],
        ["2/3", ["C"], 3],
        ["3/3", ["D", "E", "F"], 4],
      ],
    );
  });

  it("joins chains through shared dependencies either way, leaves passed stories out, and gives empty shards when there is little", () => {
    const shards = planShards(
      prd([
        { id: "A" },
        { id: "B", dependencies: ["A"] },
        { id: "C", dependencies: ["B"] },
        { id: "X", dependencies: ["C"] },
        { id: "P", status: "passed" },
      ]),
      3,
    );
    assert.deepEqual(
      shards.map((s) => s.stories),
      [["A", "B", "C", "X"], [], []],
    );
  });

  it("is deterministic: the same prd gives the same plan", () => {
    const doc = prd(["A", "B", "C", "D", "E"].map((id) => ({ id })));
    assert.deepEqual(planShards(doc, 2), planShards(doc, 2));
  });
});

describe("parseShard", () => {
  it("reads i/K and refuses anything else", () => {
    assert.deepEqual(parseShard("2/3"), { index: 2, total: 3 });
    for (const bad of ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/3/4"])
      assert.equal(parseShard(bad), undefined, bad);
  });
});
