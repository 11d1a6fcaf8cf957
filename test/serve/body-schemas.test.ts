import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import Ajv2020 from "ajv/dist/2020.js";
import { BODY_SCHEMAS, bodySchemaFile, loadBodyValidators } from "../../src/serve/body-schemas.js";

describe("the serve routes' body schemas", () => {
  it("are valid JSON Schema 2020-12 (the server compiles them without checking that)", () => {
    const ajv = new Ajv2020.default({ strict: true, strictRequired: false });
    for (const name of BODY_SCHEMAS) {
      const schema = JSON.parse(readFileSync(bodySchemaFile(name), "utf8"));
      assert.equal(ajv.validateSchema(schema), true, `${name}: ${ajv.errorsText(ajv.errors)}`);
    }
    assert.equal(ajv.validateSchema({ type: "object", properties: { a: { type: "strnig" } } }), false);
  });

  it("refuse an extra field and a missing one, and take a well-formed control", () => {
    const validators = loadBodyValidators();
    assert.equal(validators.control({ action: "pause" }), undefined);
    assert.match(validators.control({ action: "pause", note: "x" }) ?? "", /additional properties \(note\)/);
    assert.match(validators.answer({ action: "approve" }) ?? "", /requestId/);
  });
});
