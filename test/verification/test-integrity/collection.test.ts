import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  collectedBy,
  renamedOutOfCollection,
} from "../../../src/verification/strategies/test-integrity/collection.js";
import {
  compareConfig,
  isTestConfigFile,
} from "../../../src/verification/strategies/test-integrity/test-config-files.js";

describe("what the named runner collects", () => {
  it("node --test collects JavaScript only; pytest test_*.py and *_test.py; an unknown runner says nothing", () => {
    const node = ["node --test --test-reporter=spec test/"];
    assert.equal(collectedBy(node, "test/a.test.js"), true);
    assert.equal(collectedBy(node, "test/a.test.mjs"), true);
    assert.equal(collectedBy(node, "test/a.test.ts"), false);
    const pytest = ["python -m pytest -q"];
    assert.equal(collectedBy(pytest, "tests/test_total.py"), true);
    assert.equal(collectedBy(pytest, "tests/total_test.py"), true);
    assert.equal(collectedBy(pytest, "tests/check_total.py"), false);
    assert.equal(collectedBy(["cargo test"], "tests/a.rs"), undefined);
  });

  it("a rename is out of the collection only when the runner collected the old name and not the new", () => {
    assert.equal(renamedOutOfCollection(["pytest"], "tests/test_a.py", "tests/check_a.py"), true);
    assert.equal(renamedOutOfCollection(["pytest"], "tests/test_a.py", "tests/test_b.py"), false);
    assert.equal(renamedOutOfCollection(["node --test test/"], "test/a.test.js", "test/a.test.ts"), true);
    assert.equal(renamedOutOfCollection(["go test ./..."], "a_test.go", "a_test.go.txt"), false);
  });
});

describe("test configuration by runner", () => {
  it("pytest's .pytest.ini and pytest.toml, npm's .npmrc, Python's site hooks configure the tests", () => {
    for (const name of [
      ".pytest.ini",
      "pytest.toml",
      ".npmrc",
      ".yarnrc.yml",
      "bunfig.toml",
      "usercustomize.py",
    ]) {
      assert.equal(isTestConfigFile(name), true, name);
      assert.match(
        compareConfig(name, undefined, "x\n", [])[0]?.evidence ?? "",
        /added: it configures the tests/,
      );
    }
  });

  it("a Makefile or justfile is test configuration when a test command runs make or just", () => {
    assert.deepEqual(compareConfig("Makefile", "test:\n\tpytest\n", "test:\n\ttrue\n", ["make test"]), [
      { file: "Makefile", line: 2, evidence: "Makefile changed at line 2: the test command runs it" },
    ]);
    assert.equal(compareConfig("justfile", undefined, "test:\n  true\n", ["just test"]).length, 1);
    assert.deepEqual(compareConfig("Makefile", "a\n", "b\n", ["pytest -q"]), []);
  });
});
