import type { Rng } from "./harness.js";

/**
 * Seeded generators of malformed `.gantry/config.json` and `prd.json` texts. Every case is invalid by
 * construction (the kind says why), so gantry must refuse each one with an InputError.
 */

export interface Malformed {
  kind: string;
  text: string;
}

const MB = 1024 * 1024;
const huge = (c = "x") => c.repeat(MB);

/** Names and ids nobody should have to survive, but a file may hold. */
const WEIRD = [
  "../../etc/passwd",
  "a\u0000b",
  "line\nbreak",
  "cr\rhere",
  "tab\there",
  "",
  " ",
  "x".repeat(81),
  "-lead",
  ".hidden",
  "a/b",
  "ü-umlaut",
  "emoji-😀",
  "$(rm -rf /)",
  "`id`",
  "constructor",
  "__proto__",
] as const;

const weird = (rng: Rng) => (rng.chance(0.08) ? huge("k") : rng.pick(WEIRD));

/** Nested arrays `depth` deep, as text (JSON.stringify would overflow the stack past ~10,000). */
const deepText = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const DEEP = "\u0000DEEP\u0000";

function serialize(value: unknown, rng: Rng): string {
  const text = JSON.stringify(value);
  const marker = JSON.stringify(DEEP);
  return text.includes(marker) ? text.replace(marker, deepText(rng.pick([200, 5_000, 100_000]))) : text;
}

const clone = <T>(value: T): T => structuredClone(value);

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== "object" || node[key] === null || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  // defineProperty: a key such as `__proto__` must become an own key that JSON.stringify writes.
  Object.defineProperty(node, path.at(-1) as string, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** A proper prefix of a JSON object's text is never valid JSON. */
function truncated(text: string, rng: Rng): string {
  return text.slice(0, rng.int(0, text.length - 1));
}

/** A control character JSON allows neither in strings nor between tokens. */
function withControlChar(text: string, rng: Rng): string {
  const bad = String.fromCharCode(rng.pick([0, 1, 2, 7, 8, 11, 12, 14, 27, 31]));
  const at = rng.int(1, text.length - 1);
  return text.slice(0, at) + bad + text.slice(at);
}

const NON_OBJECT_ROOTS = ["null", "[]", "42", '"config"', "true", "[{}]", "-0", '""', "[[[[[]]]]]"];

// ---------------------------------------------------------------------------------------------------------
// config

export function validConfig(): Record<string, unknown> {
  return {
    agent: { default: "command", timeoutSeconds: 30, command: { run: "node agent.mjs" } },
    quality: {
      commands: { test: "npm test", lint: "biome check ." },
      timeoutSeconds: 60,
      stripEnv: ["DB_URL"],
    },
    execution: {
      maxStageRetries: 5,
      maxIterations: 50,
      costLimitUsd: 30,
      rectify: { enabled: true, maxAttempts: 2 },
      autofix: { enabled: true, maxAttempts: 2 },
      regression: { mode: "deferred" },
    },
    verify: { testStrength: false, maxScopedFiles: 50 },
    routing: { tiers: ["fast", "balanced"], complexityTier: { simple: "fast" } },
    gates: { mandatory: ["verify", "review"] },
    hooks: { "on-pause": "echo paused", "on-complete": [{ command: "echo done", timeoutMs: 1000 }] },
    reporters: ["default", ["junit", { outputFile: "junit.xml" }]],
    plugins: [],
    interaction: { channel: "auto", triggers: { "human-review": { enabled: true, fallback: "skip" } } },
  };
}

/** Paths in the config and values of the wrong type or range for each. */
const CONFIG_WRONG: [string[], unknown[]][] = [
  [["agent"], [1, "claude", [], null, true]],
  [
    ["agent", "timeoutSeconds"],
    ["30", -1, 0, 1e9, true, null, [], {}],
  ],
  [
    ["agent", "default"],
    [1, "", null, [], {}],
  ],
  [
    ["agent", "command"],
    ["node x", 1, [], null],
  ],
  [
    ["agent", "command", "run"],
    ["", 1, null, [], {}],
  ],
  [
    ["agent", "models"],
    ["x", 1, [1]],
  ],
  [
    ["agent", "models", "claude"],
    [1, "x", { fast: 1 }],
  ],
  [["quality"], ["npm test", 0, []]],
  [
    ["quality", "commands"],
    ["npm test", [], 7],
  ],
  [
    ["quality", "commands", "test"],
    [1, "", true, [], {}],
  ],
  [
    ["quality", "commands", "lint"],
    [false, [""]],
  ],
  [
    ["quality", "stripEnv"],
    ["DB_URL", [1], [""], {}],
  ],
  [
    ["quality", "timeoutSeconds"],
    [-5, "60", 86_401, 0],
  ],
  [
    ["execution", "maxStageRetries"],
    [-1, 1.5, 101, "5", null],
  ],
  [
    ["execution", "maxIterations"],
    [0, 10_001, 2.5],
  ],
  [
    ["execution", "costLimitUsd"],
    [-1, "30", {}],
  ],
  [
    ["execution", "rectify"],
    [true, 2, "on"],
  ],
  [
    ["execution", "rectify", "enabled"],
    ["yes", 1, null],
  ],
  [
    ["execution", "rectify", "maxAttempts"],
    [21, -1, 0.5],
  ],
  [
    ["execution", "autofix", "maxAttempts"],
    ["2", 1e6],
  ],
  [
    ["execution", "regression", "mode"],
    ["sometimes", "", 1, null, "INLINE", DEEP],
  ],
  [
    ["verify", "maxScopedFiles"],
    [0, -3, "x"],
  ],
  [
    ["verify", "testStrength"],
    ["true", 0],
  ],
  [
    ["routing", "tiers"],
    [[], "fast", [1], [""], DEEP],
  ],
  [
    ["routing", "complexityTier", "simple"],
    [1, null, []],
  ],
  [
    ["gates", "mandatory"],
    ["verify", [1], [""], {}],
  ],
  [
    ["hooks", "on-pause"],
    [
      1,
      "",
      null,
      [1],
      { cmd: "x" },
      { command: "x", timeoutMs: -1 },
      { command: "x", timeoutMs: 1.5 },
      { command: "" },
      { command: "x", enabled: "no" },
      DEEP,
    ],
  ],
  [["hooks", "on-lunch"], ["echo lunch"]],
  [["hooks", "onPause"], ["echo camel"]],
  [["reporters"], ["default", [1], [["x"]], [["x", 1]], [""], { default: true }]],
  [["plugins"], ["x", [1], [["x", "y"]], null]],
  [
    ["interaction", "channel"],
    ["telegram", 1, ""],
  ],
  [
    ["interaction", "triggers", "t"],
    [1, { enabled: "y" }, { fallback: "maybe" }, { timeoutSeconds: -1 }, { bogus: 1 }],
  ],
  [["$schema"], [1, [], {}]],
];

/** Objects in the config where an unknown key is an error. */
const CONFIG_OBJECTS: string[][] = [
  [],
  ["agent"],
  ["agent", "command"],
  ["quality"],
  ["quality", "commands"],
  ["execution"],
  ["execution", "rectify"],
  ["execution", "regression"],
  ["verify"],
  ["routing"],
  ["routing", "complexityTier"],
  ["gates"],
  ["interaction"],
  ["interaction", "triggers", "human-review"],
];

const CONFIG_KINDS = [
  "truncated",
  "control-char",
  "non-object-root",
  "empty",
  "wrong-type",
  "wrong-type",
  "unknown-key",
  "unknown-key",
  "deep-nesting",
] as const;

export function malformedConfig(rng: Rng): Malformed {
  const picked = rng.pick(CONFIG_KINDS);
  const kind = picked === "unknown-key" && rng.chance(0.2) ? "huge-unknown-key" : picked;
  const config = validConfig();
  switch (kind) {
    case "truncated":
      return { kind, text: truncated(JSON.stringify(config, null, rng.pick([0, 2])), rng) };
    case "control-char":
      return { kind, text: withControlChar(JSON.stringify(config, null, 2), rng) };
    case "non-object-root":
      return { kind, text: rng.pick(NON_OBJECT_ROOTS) };
    case "empty":
      return { kind, text: rng.pick(["", " ", "\n\n", "\t"]) };
    case "wrong-type": {
      const [path, values] = rng.pick(CONFIG_WRONG);
      setPath(config, path, clone(rng.pick(values)));
      return { kind: `${kind} ${path.join(".")}`, text: serialize(config, rng) };
    }
    case "unknown-key":
    case "huge-unknown-key": {
      const path = rng.pick(CONFIG_OBJECTS);
      const key =
        kind === "huge-unknown-key" ? huge("k") : rng.pick([...WEIRD.filter((k) => k !== ""), "bogus"]);
      setPath(config, [...path, key], rng.pick([1, "x", null, { a: 1 }]));
      return { kind: `${kind} at ${path.join(".") || "(top)"}`, text: serialize(config, rng) };
    }
    case "deep-nesting": {
      const path = rng.pick(CONFIG_WRONG)[0];
      setPath(config, path, DEEP);
      return { kind: `${kind} at ${path.join(".")}`, text: serialize(config, rng) };
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// PRD

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
