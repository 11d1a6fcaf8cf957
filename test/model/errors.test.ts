import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { ERRORS } from "../../src/model/errors.js";

describe("error codes", () => {
  it("docs/errors.md lists every code with its exit code and the same wording", () => {
    const doc = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
    const rows = new Map(
      [...doc.matchAll(/^\| `(GANTRY_E_[A-Z_]+)` \| (\d+) \| (.+) \|$/gm)].map((m) => [
        m[1],
        [Number(m[2]), m[3]],
      ]),
    );
    assert.deepEqual(
      [...rows.keys()].sort(),
      Object.keys(ERRORS).sort(),
      "a row for every code, and no other",
    );
    for (const [code, kind] of Object.entries(ERRORS))
      assert.deepEqual(rows.get(code), [kind.exit, kind.summary], code);
  });
});
