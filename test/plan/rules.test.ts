import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InputError } from "../../src/config/input-error.js";
import { loadRules, parseRules } from "../../src/plan/rules.js";

describe("project rules (.gantry/rules.md)", () => {
  it("reads each `- ID status: text` list item as a rule, its indented lines with it, prose and headings aside", () => {
    const { rules, errors } = parseRules(
      [
        "# Rules",
        "",
        "Prose about why the rules exist.",
        "- R-01 binding: every public function has a test",
        "- **R-02** proposed: no new dependency without a note",
        "  in docs/deps.md",
        "- a list item that is not a rule",
        "* SEC-3 Binding: no secret in the tree",
      ].join("\n"),
      "rules.md",
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(rules, [
      { id: "R-01", status: "binding", text: "every public function has a test", line: 4 },
      { id: "R-02", status: "proposed", text: "no new dependency without a note in docs/deps.md", line: 5 },
      { id: "SEC-3", status: "binding", text: "no secret in the tree", line: 8 },
    ]);
  });

  it("names every bad rule at once, by line: an unknown status, no text, a duplicate id", () => {
    const { rules, errors } = parseRules(
      ["- R-1 binding: a", "- R-2 mandatory: b", "- R-3 proposed:", "- R-1 proposed: again"].join("\n"),
      "rules.md",
    );
    assert.deepEqual(
      rules.map((r) => r.id),
      ["R-1"],
    );
    assert.deepEqual(
      errors.map((e) => e.message),
      [
        'rules.md: line 2: expected "- R-2 binding: <rule>" or "- R-2 proposed: <rule>"',
        'rules.md: line 3: R-3 says nothing after "proposed:"',
        "rules.md: line 4: R-1 is already the rule of line 1",
      ],
    );
  });

  it("loadRules: undefined without the file, an InputError naming every problem with one", () => {
    const root = mkdtempSync(join(tmpdir(), "gantry-rules-"));
    assert.equal(loadRules(root), undefined);
    mkdirSync(join(root, ".gantry"));
    writeFileSync(join(root, ".gantry/rules.md"), "- R-1 binding: ok\n- R-2 maybe: x\n- R-3 never: y\n");
    assert.throws(
      () => loadRules(root),
      (error) =>
        error instanceof InputError &&
        /\.gantry\/rules\.md: line 2: .*; line 3: expected "- R-3 binding/.test(error.message),
    );
    writeFileSync(join(root, ".gantry/rules.md"), "- R-1 binding: ok\n");
    assert.equal(loadRules(root)?.[0]?.status, "binding");
  });
});
