import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import Ajv2020 from "ajv/dist/2020.js";
import { jsonSchemas } from "../../src/cli/json-schemas.js";

const dir = new URL("../../schemas/", import.meta.url);

describe("committed JSON Schemas", () => {
  it("match what the zod schemas generate (run `npm run schemas` after changing them)", () => {
    const generated = jsonSchemas();
    const committed = readdirSync(dir).filter((f) => f.endsWith(".schema.json"));
    assert.deepEqual(
      committed.sort(),
      Object.keys(generated)
        .filter((n) => !n.includes("/"))
        .map((n) => `${n}.schema.json`)
        .sort(),
    );
    for (const [name, schema] of Object.entries(generated)) {
      const onDisk = JSON.parse(readFileSync(new URL(`${name}.schema.json`, dir), "utf8"));
      assert.deepEqual(onDisk, JSON.parse(JSON.stringify(schema)), `schemas/${name}.schema.json has drifted`);
    }
  });

  it("compile under ajv's 2020-12 build and accept a config like the design's example", () => {
    const ajv = new Ajv2020.default({ strict: false });
    const validate = ajv.compile(JSON.parse(readFileSync(new URL("config.schema.json", dir), "utf8")));
    const example = {
      agent: {
        default: "command",
        timeoutSeconds: 1800,
        command: { run: "node scripts/agent.mjs" },
        models: { claude: { fast: "haiku" } },
      },
      quality: { commands: { test: "npm test", testScoped: "node --test {{files}}" }, timeoutSeconds: 600 },
      execution: { maxStageRetries: 5, regression: { mode: "deferred" } },
      hooks: { "on-story-fail": [{ command: "echo failed", timeoutMs: 10000 }] },
      reporters: ["default", ["junit", { outputFile: "junit.xml" }]],
    };
    assert.equal(validate(example), true, JSON.stringify(validate.errors));
    assert.equal(validate({ agent: { bogus: 1 } }), false);
  });
});
