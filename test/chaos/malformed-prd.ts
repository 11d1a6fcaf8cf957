import type { Rng } from "./harness.js";
import {
  clone,
  DEEP,
  huge,
  type Malformed,
  NON_OBJECT_ROOTS,
  serialize,
  truncated,
  WEIRD,
  weird,
  withControlChar,
} from "./malformed.js";

/** Malformed `prd.json` texts: every case breaks the PRD schema, its ids and dependencies, or JSON. */

export function validPrd(rng: Rng): {
  feature: string;
  branchName: string;
  userStories: Record<string, unknown>[];
} {
  const count = rng.int(2, 6);
  const userStories = Array.from({ length: count }, (_, i) => ({
    id: `US-${i + 1}`,
    title: `Story ${i + 1}`,
    description: "Something a user wants",
    acceptanceCriteria: ["it works", "it is tested"],
    dependencies: i > 0 && rng.chance(0.5) ? [`US-${rng.int(1, i)}`] : [],
    priority: i + 1,
    tags: ["t"],
    status: "pending",
    passes: false,
    routing: { complexity: "simple" },
  }));
  return { feature: "f", branchName: "feat/f", userStories };
}

const STORY_WRONG: [string, unknown[]][] = [
  ["id", [1, null, [], {}, true]],
  ["title", [1, "", null, [], "x".repeat(501)]],
  ["description", [1, [], {}, "x".repeat(100_001)]],
  ["acceptanceCriteria", ["it works", [1], {}, Array(201).fill("a"), ["x".repeat(10_001)], [null]]],
  ["dependencies", ["US-1", [1], {}, null, DEEP]],
  ["priority", [{}, [], true, null]],
  ["tags", ["t", [1], {}]],
  ["routing", ["simple", 1, [], { complexity: "easy" }, { complexity: 1 }, { testStrategy: 5 }]],
  ["status", ["done", 1, "PASSED", "", null]],
  ["passes", ["yes", 1, null]],
  ["attempts", [-1, 1.5, "2", null]],
];

const TOP_WRONG: [string, unknown[]][] = [
  ["feature", ["", 1, [], null]],
  ["project", ["", [], 3]],
  ["branchName", [1, [], {}]],
  ["userStories", [[], "US-1", {}, null, [1], [[]], ["US-1"], DEEP]],
];

const PRD_KINDS = [
  "truncated",
  "control-char",
  "non-object-root",
  "empty",
  "wrong-type",
  "top-wrong-type",
  "missing-field",
  "duplicate-id",
  "cycle",
  "self-dependency",
  "missing-dependency",
  "bad-id",
  "huge-string",
  "unknown-keys-and-defect",
  "deep-unknown-field",
] as const;

export function malformedPrd(rng: Rng): Malformed {
  const kind = rng.pick(PRD_KINDS);
  return prdCase(kind, rng);
}

function prdCase(kind: (typeof PRD_KINDS)[number], rng: Rng): Malformed {
  const prd = validPrd(rng);
  const stories = prd.userStories;
  const any = () => rng.pick(stories);
  switch (kind) {
    case "truncated":
      return { kind, text: truncated(JSON.stringify(prd, null, rng.pick([0, 2])), rng) };
    case "control-char":
      return { kind, text: withControlChar(JSON.stringify(prd, null, 2), rng) };
    case "non-object-root":
      return { kind, text: rng.pick(NON_OBJECT_ROOTS) };
    case "empty":
      return { kind, text: rng.pick(["", "   ", "\n"]) };
    case "wrong-type": {
      const [field, values] = rng.pick(STORY_WRONG);
      any()[field] = clone(rng.pick(values));
      return { kind: `${kind} ${field}`, text: serialize(prd, rng) };
    }
    case "top-wrong-type": {
      const [field, values] = rng.pick(TOP_WRONG);
      (prd as Record<string, unknown>)[field] = clone(rng.pick(values));
      return { kind: `${kind} ${field}`, text: serialize(prd, rng) };
    }
    case "missing-field": {
      const field = rng.pick(["userStories", "id", "title"]);
      if (field === "userStories") delete (prd as Record<string, unknown>).userStories;
      else delete any()[field];
      return { kind: `${kind} ${field}`, text: serialize(prd, rng) };
    }
    case "duplicate-id": {
      const i = rng.int(1, stories.length - 1);
      (stories[i] as Record<string, unknown>).id = (stories[rng.int(0, i - 1)] as Record<string, unknown>).id;
      for (const s of stories) s.dependencies = [];
      return { kind, text: serialize(prd, rng) };
    }
    case "cycle": {
      const length = rng.int(2, stories.length);
      for (let i = 0; i < length; i++) {
        (stories[i] as Record<string, unknown>).dependencies = [`US-${((i + 1) % length) + 1}`];
      }
      return { kind: `${kind} of ${length}`, text: serialize(prd, rng) };
    }
    case "self-dependency": {
      const s = any();
      s.dependencies = [s.id];
      return { kind, text: serialize(prd, rng) };
    }
    case "missing-dependency": {
      any().dependencies = [rng.chance(0.5) ? "US-99" : weird(rng)];
      return { kind, text: serialize(prd, rng) };
    }
    case "bad-id": {
      const s = any();
      const id = rng.chance(0.1) ? huge("i") : rng.pick(WEIRD.filter((w) => !["constructor"].includes(w)));
      const old = s.id;
      s.id = id;
      for (const other of stories)
        other.dependencies = (other.dependencies as string[]).filter((d) => d !== old);
      return { kind: `${kind} ${JSON.stringify(id.slice(0, 20))}`, text: serialize(prd, rng) };
    }
    case "huge-string": {
      const field = rng.pick(["title", "description", "acceptanceCriteria"]);
      any()[field] = field === "acceptanceCriteria" ? [huge()] : huge();
      return { kind: `${kind} ${field}`, text: serialize(prd, rng) };
    }
    case "deep-unknown-field": {
      // Valid by the schema (unknown fields are kept), but too deep to be written back: refused at load.
      any().notes = DEEP;
      return { kind, text: serialize(prd, rng) };
    }
    case "unknown-keys-and-defect": {
      // Unknown keys are kept, not refused (nax and Ralph write them); the case is malformed by another defect.
      const inner = prdCase(
        rng.pick(["wrong-type", "duplicate-id", "cycle", "missing-dependency", "bad-id", "missing-field"]),
        rng,
      );
      const key = JSON.stringify(weird(rng) || "extra");
      const value = JSON.stringify(rng.pick([1, "x", { nested: [1, 2] }, null]));
      return { kind: `unknown keys + ${inner.kind}`, text: `{${key}:${value},${inner.text.slice(1)}` };
    }
  }
}
