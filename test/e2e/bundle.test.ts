import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { baseConfig, CLI, gantry, makeProject } from "./harness.js";

const CHUNKS = join(CLI, "..", "chunks");

describe("the bundle (scripts/build.mjs)", () => {
  it("holds zod's English locale and none of its others", () => {
    const sources = readdirSync(CHUNKS)
      .filter((name) => name.endsWith(".js.map"))
      .flatMap(
        (name) => (JSON.parse(readFileSync(join(CHUNKS, name), "utf8")) as { sources: string[] }).sources,
      );
    const locales = sources.filter((s) => /node_modules\/zod\/.*\/locales\//.test(s));
    assert.ok(
      locales.some((s) => s.endsWith("/locales/en.js")),
      "zod's English locale is bundled",
    );
    assert.deepEqual(
      locales.filter((s) => !s.endsWith("/locales/en.js")),
      [],
    );
  });

  it("reports a config error in zod's English message", async () => {
    const root = makeProject({ stories: [{ id: "US-1", title: "one" }], plan: {} });
    const config = baseConfig() as { agent: { command: { run: unknown } } };
    config.agent.command.run = 5;
    writeFileSync(join(root, ".gantry", "config.json"), JSON.stringify(config));
    const result = await gantry(root, ["validate"]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /agent\.command\.run: expected string, received number/);
  });
});
