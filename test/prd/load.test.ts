import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InputError } from "../../src/config/input-error.js";
import { loadPrd, parsePrd } from "../../src/prd/load.js";
import { saveStoryPatch } from "../../src/prd/save.js";
import { selectStories } from "../../src/prd/select.js";
import { statusOf } from "../../src/prd/story.js";

// The shape nax writes: extra top-level and per-story fields gantry does not know.
const naxPrd = {
  project: "shop",
  feature: "checkout",
  branchName: "feat/checkout",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  userStories: [
    {
      id: "US-001",
      title: "Cart total",
      description: "Sum the cart",
      acceptanceCriteria: ["total is the sum"],
      tags: ["cart"],
      dependencies: [],
      status: "passed",
      passes: true,
      escalations: [],
      attempts: 1,
      routing: { complexity: "simple", testStrategy: "test-after", modelTier: "fast", reasoning: "small" },
    },
    {
      id: "US-002",
      title: "Discounts",
      description: "Apply codes",
      acceptanceCriteria: ["10% off"],
      tags: [],
      dependencies: ["US-001"],
      status: "pending",
      passes: false,
      escalations: [],
      attempts: 0,
      contextFiles: ["src/cart.ts"],
    },
  ],
};

// Ralph writes only `passes`, a numeric priority and notes.
const ralphPrd = {
  project: "shop",
  branchName: "ralph/checkout",
  description: "Checkout",
  userStories: [
    {
      id: "US-001",
      title: "A",
      description: "a",
      acceptanceCriteria: ["x"],
      priority: 2,
      passes: false,
      notes: "",
    },
    {
      id: "US-002",
      title: "B",
      description: "b",
      acceptanceCriteria: ["y"],
      priority: 1,
      passes: true,
      notes: "done",
    },
  ],
};

function tempFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), "gantry-prd-")), "prd.json");
  writeFileSync(path, `${JSON.stringify(content, null, 2)}\n`);
  return path;
}

describe("PRD loading and write-back", () => {
  it("loads a nax PRD unchanged and keeps unknown fields through a write-back", () => {
    const path = tempFile(naxPrd);
    const prd = loadPrd(path);
    assert.equal(prd.userStories.length, 2);
    saveStoryPatch(path, "US-002", { status: "passed", attempts: 2 });
    const after = JSON.parse(readFileSync(path, "utf8"));
    const expected = structuredClone(naxPrd);
    Object.assign(expected.userStories[1] as object, { status: "passed", passes: true, attempts: 2 });
    assert.deepEqual(after, expected);
  });

  it("loads a Ralph PRD: status from passes, order by priority", () => {
    const prd = loadPrd(tempFile(ralphPrd));
    assert.deepEqual(prd.userStories.map(statusOf), ["pending", "passed"]);
    assert.deepEqual(
      selectStories(prd).map((s) => s.id),
      ["US-001"],
    );
  });

  it("orders by dependencies, then priority, and never selects passed stories", () => {
    const prd = parsePrd("p", {
      userStories: [
        { id: "C", title: "c", dependencies: ["B"], priority: 1 },
        { id: "B", title: "b", priority: 3 },
        { id: "A", title: "a", priority: 2 },
        { id: "D", title: "d", status: "passed" },
      ],
    });
    assert.deepEqual(
      selectStories(prd).map((s) => s.id),
      ["A", "B", "C"],
    );
    assert.deepEqual(
      selectStories(prd, ["C"]).map((s) => s.id),
      ["C"],
    );
  });

  const bad: [string, unknown, string][] = [
    [
      "a duplicate id",
      {
        userStories: [
          { id: "A", title: "a" },
          { id: "A", title: "b" },
        ],
      },
      'userStories[1].id: duplicate story id "A"',
    ],
    [
      "a missing dependency",
      { userStories: [{ id: "A", title: "a", dependencies: ["Z"] }] },
      'userStories[0].dependencies[0]: depends on "Z"',
    ],
    [
      "a cycle",
      {
        userStories: [
          { id: "A", title: "a", dependencies: ["B"] },
          { id: "B", title: "b", dependencies: ["A"] },
        ],
      },
      "dependency cycle: A -> B -> A",
    ],
    [
      "a path-like id",
      { userStories: [{ id: "../../etc/passwd", title: "a" }] },
      "userStories[0].id: expected an id",
    ],
    [
      "a wrong type",
      { userStories: [{ id: "A", title: "a", acceptanceCriteria: "x" }] },
      "userStories[0].acceptanceCriteria: expected array, received string",
    ],
    ["no stories", { feature: "f" }, "userStories: expected array, received undefined"],
  ];
  for (const [what, raw, message] of bad) {
    it(`rejects ${what}, naming the place`, () => {
      assert.throws(
        () => parsePrd("prd.json", raw),
        (error: unknown) => error instanceof InputError && error.message.includes(message),
      );
    });
  }

  it("reports invalid JSON with line and column", () => {
    const path = join(mkdtempSync(join(tmpdir(), "gantry-prd-")), "prd.json");
    writeFileSync(path, '{\n  "userStories": [\n    {"id": "A",, }\n  ]\n}\n');
    assert.throws(() => loadPrd(path, "prd.json"), /prd\.json: line 3, column \d+: not valid JSON/);
  });
});
