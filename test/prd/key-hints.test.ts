import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonSchemas } from "../../src/cli/json-schemas.js";
import { describeHint, keyHints } from "../../src/prd/key-hints.js";
import { parsePrd } from "../../src/prd/load.js";
import { editDistance, suggestKey } from "../../src/util/suggest-key.js";

const story = (extra: Record<string, unknown>) => ({ id: "US-1", title: "t", ...extra });

describe("PRD key hints", () => {
  it("names each misspelt-looking key with its place and the key it probably means", () => {
    const raw = {
      user_stories: [],
      userStories: [
        story({ acceptance_criteria: ["a"], dependsOn: ["US-2"], priorty: 1, complexity: "simple" }),
        { id: "US-2", title: "b", "depends-on": [], Tags: ["x"], routing: { complexty: "simple" } },
      ],
    };
    const found = keyHints(raw).map((h) => `${h.where} -> ${h.suggestion}`);
    assert.deepEqual(found, [
      "user_stories -> userStories",
      "userStories[0].acceptance_criteria -> acceptanceCriteria",
      "userStories[0].dependsOn -> dependencies",
      "userStories[0].priorty -> priority",
      "userStories[0].complexity -> routing.complexity",
      "userStories[1].depends-on -> dependencies",
      "userStories[1].Tags -> tags",
      "userStories[1].routing.complexty -> complexity",
    ]);
    const [first] = keyHints({ userStories: [story({ dependsOn: ["US-2"] })] });
    assert.ok(first);
    assert.equal(
      describeHint("prd.json", first),
      'prd.json: userStories[0].dependsOn: unknown key "dependsOn"; did you mean "dependencies"? (kept in the file, but gantry does not read it)',
    );
  });

  it("leaves known keys, unrelated keys (nax's and Ralph's own) and near misses beside their key alone", () => {
    const raw = {
      $schema: "x",
      project: "p",
      description: "Ralph's",
      createdAt: "2026",
      userStories: [
        story({
          notes: "n",
          contextFiles: ["a.ts"],
          escalations: [],
          passes: true,
          passed: true,
          uid: 3,
          routing: { complexity: "simple", reasoning: "r", modelTier: "fast" },
        }),
      ],
    };
    assert.deepEqual(keyHints(raw), []);
    assert.deepEqual(keyHints("not an object"), []);
    assert.deepEqual(keyHints({ userStories: "nope" }), []);
  });

  it("keeps the unknown keys when the PRD is parsed, so they round-trip", () => {
    const prd = parsePrd("prd.json", { userStories: [story({ dependsOn: ["US-1"], custom: { a: 1 } })] });
    const parsed = prd.userStories[0] as Record<string, unknown>;
    assert.deepEqual(parsed.dependsOn, ["US-1"]);
    assert.deepEqual(parsed.custom, { a: 1 });
    assert.deepEqual(prd.userStories[0]?.dependencies, [], "the misspelt key is not read as the dependency");
  });

  it("matches by normalized spelling, aliases and edit distance", () => {
    const known = ["dependencies", "acceptanceCriteria", "tags", "id"];
    assert.equal(suggestKey("ACCEPTANCE-CRITERIA", known, {}), "acceptanceCriteria");
    assert.equal(suggestKey("dependancies", known, {}), "dependencies");
    assert.equal(suggestKey("tgas", known, {}), "tags", "a swap of neighbours is one edit");
    assert.equal(suggestKey("xyz", known, {}), undefined);
    assert.equal(suggestKey("uid", known, {}, new Set(["id"])), undefined);
    assert.equal(suggestKey("uid", known, {}), "id");
    assert.equal(suggestKey("___", known, {}), undefined);
    assert.equal(editDistance("kitten", "sitting"), 3);
    assert.equal(editDistance("ab", "ba"), 1);
    assert.equal(editDistance("", "abc"), 3);
  });

  it("the PRD's JSON Schema describes every field, for editors and `gantry schema prd`", () => {
    const missing: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (typeof node !== "object" || node === null) return;
      const schema = node as { properties?: Record<string, unknown>; items?: unknown };
      for (const [key, child] of Object.entries(schema.properties ?? {})) {
        if (typeof (child as { description?: unknown }).description !== "string")
          missing.push(`${path}.${key}`);
        walk(child, `${path}.${key}`);
      }
      walk(schema.items, `${path}[]`);
    };
    walk(jsonSchemas().prd, "prd");
    assert.deepEqual(missing, []);
    assert.ok(JSON.stringify(jsonSchemas().prd).includes("ids of stories in this file that must pass first"));
  });
});
