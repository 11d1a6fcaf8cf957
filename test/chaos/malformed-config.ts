import type { Rng } from "./harness.js";
import {
  clone,
  DEEP,
  huge,
  type Malformed,
  NON_OBJECT_ROOTS,
  serialize,
  setPath,
  truncated,
  WEIRD,
  withControlChar,
} from "./malformed.js";

/** Malformed `.gantry/config.json` texts: every case breaks the config schema or JSON itself. */

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
