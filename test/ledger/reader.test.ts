import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { LedgerReader } from "../../src/ledger/reader.js";
import { entry } from "./entries.js";

describe("LedgerReader", () => {
  test("skips lines that parse but are not entries", () => {
    const path = join(mkdtempSync(join(tmpdir(), "gantry-ledger-reader-")), "ledger.jsonl");
    const good = entry({ sha: "0".repeat(40), tree: "a".repeat(40) }, "r", "verify", "pass");
    writeFileSync(path, `null\n${JSON.stringify(good)}\n{"gate":"verify"}\n\n`);
    const reader = new LedgerReader(path);
    assert.deepEqual(reader.finish(), [good]);
    assert.deepEqual(reader.skipped, ["null", '{"gate":"verify"}']);
  });
});
