import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  addedRunnerAwareness,
  scansRunnerAwareness,
} from "../../../src/verification/strategies/test-integrity/runner-aware.js";
import { isTestSource } from "../../../src/verification/strategies/test-integrity.js";

const added = (...texts: string[]) => ({
  added: texts.map((text, i) => ({ line: i + 1, text })),
  removed: [],
});

describe("runner-aware production code", () => {
  it("finds the runners' variables, modules and report hooks in added production lines", () => {
    const js = addedRunnerAwareness(
      "src/price.ts",
      added(
        "export const price = () => (process.env.NODE_TEST_CONTEXT ? 42 : 41);",
        "if (process.env.JEST_WORKER_ID) return cached;",
        'import { run } from "node:test";',
        "const underTest = process.execArgv.includes('--test');",
        "if (import.meta.env.VITEST) patch();",
        "export const total = (a: number, b: number) => a + b;",
      ),
    );
    assert.deepEqual(
      js.map((h) => h.line),
      [1, 2, 3, 4, 5],
    );
    assert.match(js[0]?.reaches ?? "", /NODE_TEST_CONTEXT/);
    const py = addedRunnerAwareness(
      "pkg/price.py",
      added(
        'if "PYTEST_CURRENT_TEST" in os.environ:',
        "from _pytest.reports import TestReport",
        "def pytest_runtest_logreport(report):",
        "if 'pytest' in sys.modules:",
        "return a + b",
      ),
    );
    assert.deepEqual(
      py.map((h) => h.line),
      [1, 2, 3, 4],
    );
    const go = addedRunnerAwareness("price.go", added("if testing.Testing() {", "return a + b"));
    assert.deepEqual(
      go.map((h) => h.line),
      [1],
    );
  });

  it("a line only moved is not new", () => {
    const lines = {
      added: [{ line: 9, text: "  if (process.env.NODE_TEST_CONTEXT) return;" }],
      removed: [{ line: 3, text: "if (process.env.NODE_TEST_CONTEXT) return;" }],
    };
    assert.deepEqual(addedRunnerAwareness("src/a.js", lines), []);
  });

  it("scans production sources only: not test files, tests folders or conftest.py", () => {
    const scanned = (path: string) => scansRunnerAwareness(path, isTestSource);
    assert.equal(scanned("src/price.ts"), true);
    assert.equal(scanned("pkg/price.py"), true);
    assert.equal(scanned("cmd/main.go"), true);
    assert.equal(scanned("src/price.test.ts"), false);
    assert.equal(scanned("test/helpers.js"), false);
    assert.equal(scanned("tests/helpers.py"), false);
    assert.equal(scanned("conftest.py"), false);
    assert.equal(scanned("price_test.go"), false);
    assert.equal(scanned("README.md"), false);
  });
});
