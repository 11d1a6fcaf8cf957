import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { git } from "./harness.js";
import { honestRun, hostileRun, languageProject, SANDBOX_VARIANTS } from "./language-project.js";

/**
 * A Python project judged by real pytest, through the built CLI: an honest agent passes with the sandbox
 * on (over the overlay and over a scratch copy) and off, pytest's cache and bytecode staying out of the
 * tree; a hostile one that adds `.pytest.ini` is caught by test-integrity.
 */

const support = await sandboxSupport();
const noBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;

const CALC = "def add(a, b):\n    return a + b\n";
const CALC_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n";
const BASE_TEST = "def test_base():\n    assert 1 + 1 == 2\n";

function pythonProject(sandbox: string, extra: Record<string, string> = {}, short = false): string {
  return languageProject({
    sandbox,
    commands: { test: "python3 -m pytest tests", testScoped: "python3 -m pytest {{files}}" },
    files: { "tests/test_base.py": BASE_TEST },
    written: { "calc.py": CALC, "tests/test_calc.py": CALC_TEST, ...extra },
    short,
  });
}

describe("a Python project under pytest (built CLI)", () => {
  for (const { sandbox, layer, name } of SANDBOX_VARIANTS) {
    it(`${name}: an honest agent's story passes`, {
      skip: sandbox === "bwrap" ? noBwrap : false,
    }, async () => {
      const root = pythonProject(sandbox);
      await honestRun(root, layer, "pytest");
      assert.equal(existsSync(join(root, "__pycache__")), false, "no bytecode written into the tree");
      if (sandbox === "bwrap")
        assert.equal(existsSync(join(root, ".pytest_cache")), false, "pytest's cache stayed in the layer");
      assert.equal(git(root, "show", "HEAD:calc.py"), CALC);
    });
  }

  it("a .pytest.ini the agent adds is test configuration: test-integrity fails the story", async () => {
    const root = pythonProject("auto", { ".pytest.ini": "[pytest]\naddopts = -p no:randomly\n" }, true);
    const findings = await hostileRun(root);
    assert.ok(
      findings.some((f) => f.kind === "test-config-changed" && f.file === ".pytest.ini"),
      JSON.stringify(findings),
    );
  });
});
