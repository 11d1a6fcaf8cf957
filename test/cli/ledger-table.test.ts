import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatDetail } from "../../src/cli/ledger-table.js";

describe("ledger table", () => {
  test("formatDetail: failed checks by name, else the scalar fields, each on one line", () => {
    assert.equal(formatDetail({ checks: [{ name: "lint", success: false, exitCode: 1 }] }), "lint failed");
    assert.equal(
      formatDetail({ command: "npm run e2e", exitCode: 0, nested: { a: 1 } }),
      "command=npm run e2e exitCode=0",
    );
    assert.equal(formatDetail({ reason: "two\nlines" }), "reason=two lines");
    assert.equal(formatDetail({}), "");
  });
});
