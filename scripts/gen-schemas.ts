// Writes schemas/*.schema.json from the zod schemas. test/config/schemas.test.ts fails when they drift.
import { writeFileSync } from "node:fs";
import { jsonSchemas } from "../src/cli/json-schemas.js";

for (const [name, schema] of Object.entries(jsonSchemas())) {
  writeFileSync(
    new URL(`../schemas/${name}.schema.json`, import.meta.url),
    `${JSON.stringify(schema, null, 2)}\n`,
  );
  console.log(`schemas/${name}.schema.json`);
}
