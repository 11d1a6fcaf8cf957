import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { pytestParser } from "../../src/verification/parsers/pytest.js";
import { unreadableHead, unreadableReason } from "../../src/verification/unreadable.js";

const BANNER = [
  "============================= test session starts ==============================",
  `platform linux -- Python 3.11.7, pytest-8.0.0, pluggy-1.4.0 -- ${"/very/long/path".repeat(30)}`,
  "rootdir: /tmp/proj",
  "collected 0 items / 1 error",
].join("\n");
const output = `${BANNER}\n${readFileSync(new URL("../fixtures/parsers/pytest/importerr.q.log", import.meta.url), "utf8")}`;

describe("what a BUILD_ERROR quotes", () => {
  it("the error line once, not the runner's banner", () => {
    const head = unreadableHead("BUILD_ERROR", output);
    assert.deepEqual(head, ["E   ModuleNotFoundError: No module named 'missing_module'"]);
    const parsed = pytestParser.parse(output);
    const reason = unreadableReason("BUILD_ERROR", parsed.reason, head);
    assert.equal(
      reason,
      "BUILD_ERROR: the tests did not build or load (tests/test_math.py did not load: ModuleNotFoundError: No module named 'missing_module')",
    );
    assert.doesNotMatch(reason, /test session starts|platform linux/);
  });

  it("the first lines when no line names an error, and for the other unreadable statuses", () => {
    assert.deepEqual(unreadableHead("BUILD_ERROR", "sh: 1: pytest: not found\n"), [
      "sh: 1: pytest: not found",
    ]);
    assert.equal(unreadableHead("UNPARSED", output)[0], BANNER.split("\n")[0]);
    assert.match(unreadableReason("UNPARSED", undefined, ["all good"]), /it begins: "all good"$/);
  });
});
