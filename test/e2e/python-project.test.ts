import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { FORCE_LAYER_VARIABLE } from "../../src/process/judging-support.js";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { baseConfig, gantry, git, lastRun, makeProject, prdStories, story } from "./harness.js";

/**
 * A Python project judged by real pytest, through the built CLI: an honest agent passes with the sandbox
 * on (over the overlay and over a scratch copy) and off (pytest's cache and bytecode stay out of the tree); a hostile one that adds `.pytest.ini` is
 * caught by test-integrity.
 */

const support = await sandboxSupport();
const noBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;

const CALC = "def add(a, b):\n    return a + b\n";
const CALC_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n";
const BASE_TEST = "def test_base():\n    assert 1 + 1 == 2\n";

function pythonProject(sandbox: string, extra: Record<string, string> = {}, short = false): string {
  const config = baseConfig();
  // A hostile story fails: one tier and one rectify, so it fails soon.
  if (short) {
    config.execution = { ...(config.execution as object), rectify: { enabled: true, maxAttempts: 1 } };
    config.routing = { tiers: ["fast"] };
  }
  config.agent = { ...(config.agent as object), sandbox };
  config.quality = {
    ...(config.quality as object),
    commands: { test: "python3 -m pytest tests", testScoped: "python3 -m pytest {{files}}" },
  };
  return makeProject({
    stories: [story("US-1")],
    plan: { "US-1": [{ write: { "calc.py": CALC, "tests/test_calc.py": CALC_TEST, ...extra } }] },
    config,
    files: { "tests/test_base.py": BASE_TEST },
  });
}

describe("a Python project under pytest (built CLI)", () => {
  for (const { sandbox, layer } of [
    { sandbox: "bwrap", layer: undefined },
    { sandbox: "bwrap", layer: "copy" },
    { sandbox: "off", layer: undefined },
  ]) {
    const name = `agent.sandbox "${sandbox}"${layer ? ", judging over a scratch copy" : ""}`;
    it(`${name}: an honest agent's story passes`, {
      skip: sandbox === "bwrap" ? noBwrap : false,
    }, async () => {
      const root = pythonProject(sandbox);
      const result = await gantry(root, ["run", "--feature", "f"], {
        timeoutMs: 400_000,
        ...(layer ? { env: { [FORCE_LAYER_VARIABLE]: layer } } : {}),
      });
      assert.equal(result.code, 0, result.stderr + result.stdout);
      assert.equal(prdStories(root)["US-1"]?.status, "passed");
      if (layer) assert.match(result.stderr, /judging commands run over a scratch copy/);
      const verified = lastRun(root).events.filter((e) => e.type === "verify:result");
      assert.ok(
        verified.some((e) => e.status === "PASS" && e.runner === "pytest"),
        JSON.stringify(verified),
      );
      assert.equal(existsSync(join(root, "__pycache__")), false, "no bytecode written into the tree");
      if (sandbox === "bwrap")
        assert.equal(existsSync(join(root, ".pytest_cache")), false, "pytest's cache stayed in the layer");
      assert.equal(git(root, "show", "HEAD:calc.py"), CALC);
    });
  }

  it("a .pytest.ini the agent adds is test configuration: test-integrity fails the story", async () => {
    const root = pythonProject("auto", { ".pytest.ini": "[pytest]\naddopts = -p no:randomly\n" }, true);
    const result = await gantry(root, ["run", "--feature", "f"], { timeoutMs: 400_000 });
    assert.equal(result.code, 1, result.stderr + result.stdout);
    assert.notEqual(prdStories(root)["US-1"]?.status, "passed");
    const integrity = lastRun(root).ledger.filter((e) => e.gate === "test-integrity");
    const findings = integrity.flatMap(
      (e) => ((e.detail ?? {}) as { findings?: { kind: string; file: string }[] }).findings ?? [],
    );
    assert.ok(
      findings.some((f) => f.kind === "test-config-changed" && f.file === ".pytest.ini"),
      JSON.stringify(findings),
    );
  });
});
