import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeChanges, mergePlan } from "../../src/prd/plan-merge.js";

const s = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `Story ${id}`,
  acceptanceCriteria: [`${id.toLowerCase()}() returns 1`],
  ...extra,
});

describe("mergePlan", () => {
  it("adds new stories as pending and drops any status an answer claims", () => {
    const out = mergePlan(
      undefined,
      { userStories: [s("A", { status: "passed", passes: true, attempts: 3 })] },
      "f",
      "answer",
    );
    assert.ok(out.ok);
    assert.deepEqual(out.doc, {
      feature: "f",
      userStories: [{ ...s("A"), status: "pending", passes: false }],
    });
    assert.deepEqual(describeChanges(out.changes), ["added A"]);
  });

  it("never rewrites a passed story; refines the others keeping their status; leaves unanswered ones", () => {
    const existing = {
      feature: "f",
      extra: 1,
      userStories: [
        { ...s("A"), status: "passed", passes: true },
        { ...s("B"), status: "failed", passes: false, attempts: 2 },
        s("C"),
      ],
    };
    const out = mergePlan(
      existing,
      [s("A", { title: "new" }), s("B", { title: "better" }), s("D")],
      "f",
      "answer",
    );
    assert.ok(out.ok);
    assert.deepEqual(describeChanges(out.changes), [
      "kept A as it is (passed)",
      "refined B (title)",
      "added D",
    ]);
    assert.deepEqual(out.doc.userStories?.[0], existing.userStories[0]);
    assert.deepEqual(out.doc.userStories?.[1], {
      ...s("B", { title: "better" }),
      status: "failed",
      passes: false,
      attempts: 2,
    });
    assert.deepEqual(
      out.doc.userStories?.map((x) => x.id),
      ["A", "B", "C", "D"],
    );
    assert.equal(out.doc.extra, 1, "top-level fields kept");
  });

  it("names what is wrong as validate does: no stories, duplicates, missing dependencies, cycles, uncheckable criteria", () => {
    const errors = (answer: unknown) => {
      const out = mergePlan(undefined, answer, "f", "answer.json");
      assert.equal(out.ok, false);
      return out.ok ? [] : out.errors;
    };
    assert.match(errors({})[0] ?? "", /expected \{"userStories"/);
    assert.match(errors([s("A"), s("A")])[0] ?? "", /duplicate story id "A"/);
    assert.match(errors([s("A", { dependencies: ["Z"] })])[0] ?? "", /depends on "Z", which is not a story/);
    assert.match(
      errors([s("A", { dependencies: ["B"] }), s("B", { dependencies: ["A"] })])[0] ?? "",
      /dependency cycle/,
    );
    assert.match(
      errors([s("A", { acceptanceCriteria: ["it works"] })])[0] ?? "",
      /A needs at least one criterion with an observable outcome/,
    );
    assert.match(errors([{ id: "bad id!", title: "x" }])[0] ?? "", /answer\.json.*userStories\[0\]\.id/);
  });

  it("gives every error of an answer at once, of every kind: a bad id, a missing title, a dangling dependency, a vague criterion", () => {
    const out = mergePlan(
      undefined,
      [
        { id: "bad id!", title: "x", acceptanceCriteria: ["x() returns 1"] },
        { id: "B", acceptanceCriteria: ["x() returns 1"] },
        s("C", { dependencies: ["Z"] }),
        s("D", { acceptanceCriteria: ["it works"] }),
      ],
      "f",
      "answer.json",
    );
    assert.equal(out.ok, false);
    const errors = out.ok ? [] : out.errors;
    assert.equal(errors.length, 4, errors.join("\n"));
    assert.match(errors[0] ?? "", /userStories\[0\]\.id/);
    assert.match(errors[1] ?? "", /userStories\[1\]\.title/);
    assert.match(errors[2] ?? "", /userStories\[2\]\.dependencies\[0\]: depends on "Z"/);
    assert.match(errors[3] ?? "", /userStories\[3\]\.acceptanceCriteria: D needs at least one criterion/);
  });
});
