import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { mainCheckoutImports } from "../../src/pipeline/parallel/main-checkout-imports.js";
import { type AgentSession, gantry, git, makeProject, prdStories, REPO, story } from "../e2e/harness.js";
import { chaosConfig } from "./project.js";

const AGENT = join(REPO, "test", "e2e", "fixtures", "scripted-agent.sh");
/**
 * An editable install into a virtualenv of its own that still sees the machine's pytest and setuptools,
 * with nothing from a package index: setuptools' `develop` (pip's editable install would need the wheel
 * package, which a machine without an index may lack), and the generated, ignored `_version.py`.
 */
const INSTALL =
  "python3 -m venv --without-pip --system-site-packages .venv && .venv/bin/python tools/gen_version.py && .venv/bin/python setup.py -q develop";
const python = spawnSync("python3", ["-c", "import venv, setuptools, pytest"], { encoding: "utf8" });
const skip =
  python.status === 0 ? false : `python3 with venv, setuptools and pytest is needed: ${python.stderr}`;

/** A src-layout package whose tests import it through an editable install and a generated, ignored _version.py. */
const FILES: Record<string, string> = {
  ".gitignore":
    ".gantry/runs/\n.gantry/lock\n.agent-log.jsonl\n.agent-plan.json\n.venv/\n*.egg-info/\n__pycache__/\n.pytest_cache/\nsrc/calc/_version.py\n",
  "pyproject.toml":
    '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n',
  "setup.py": "from setuptools import setup\n\nsetup()\n",
  "tools/gen_version.py": 'open("src/calc/_version.py", "w").write("VERSION = \\"0.1.0\\"\\n")\n',
  "src/calc/__init__.py": "from calc._version import VERSION\n",
  "src/calc/ops.py": "def add(a, b):\n    # add\n    return 0\n\n\ndef mul(a, b):\n    # mul\n    return 0\n",
  "tests/test_version.py": "import calc\n\n\ndef test_version():\n    assert calc.VERSION == '0.1.0'\n",
};

/** Story `fn` writes its function in ops.py in place and adds its own test of it, importing the package. */
function session(fn: string, body: string, expected: string): AgentSession {
  return {
    sh: `sed -i '/# ${fn}$/{n;s/return 0/return ${body}/}' src/calc/ops.py`,
    write: {
      [`tests/test_${fn}.py`]: `from calc.ops import ${fn}\n\n\ndef test_${fn}():\n    assert ${fn}(3, 4) == ${expected}\n`,
    },
  };
}

describe("a src-layout Python project with an editable install, at --parallel 2", { skip }, () => {
  let root: string;
  let run: { code: number | null; stdout: string; stderr: string };
  let leak: string | undefined;

  before(async () => {
    const config = chaosConfig({
      agent: { command: { run: `sh ${JSON.stringify(AGENT)}` } },
      execution: { worktreeSetup: INSTALL },
    });
    const pytest = ".venv/bin/python -m pytest -q -p no:cacheprovider";
    Object.assign(config.quality.commands, {
      test: `${pytest} tests`,
      testScoped: `${pytest} {{files}}`,
      lint: "true",
      lintFix: undefined,
    });
    root = makeProject({
      stories: [story("ADD"), story("MUL")],
      plan: { ADD: [session("add", "a + b", "7")], MUL: [session("mul", "a * b", "12")] },
      config,
      files: FILES,
    });
    // The main checkout installed as its developer would: editable, into its own virtualenv.
    execFileSync("/bin/sh", ["-c", INSTALL], { cwd: root, stdio: "pipe", timeout: 120_000 });
    leak = mainCheckoutImports(realpathSync(root), root);
    run = await gantry(root, ["run", "--feature", "f", "--parallel", "2"], {
      env: { SCRIPTED_AGENT_HOME: root },
      timeoutMs: 400_000,
    });
  });

  it("passes both stories, each judged by its own worktree's code, and merges them", () => {
    assert.equal(run.code, 0, `${root}\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
    const stories = prdStories(root);
    assert.equal(stories.ADD?.status, "passed");
    assert.equal(stories.MUL?.status, "passed");
    const ops = git(root, "show", "HEAD:src/calc/ops.py");
    assert.match(ops, /return a \+ b/);
    assert.match(ops, /return a \* b/);
    // Nothing the setup made (virtualenv, egg-info, _version.py) is in a commit.
    const files = git(root, "ls-tree", "-r", "--name-only", "HEAD");
    assert.doesNotMatch(files, /\.venv\/|egg-info|src\/calc\/_version\.py/);
    assert.equal(git(root, "status", "--porcelain"), "");
  });

  it("sees that, without worktreeSetup, a worktree's tests would import the main checkout's code", () => {
    assert.match(
      leak ?? "",
      /site-packages\/calc\.egg-link points at the main checkout .*execution\.worktreeSetup/,
    );
    // With worktreeSetup set, the run does not warn.
    assert.doesNotMatch(run.stderr, /points at the main checkout/);
  });

  it("the main checkout's own tests pass on the merged code", () => {
    const out = execFileSync("/bin/sh", ["-c", ".venv/bin/python -m pytest -q -p no:cacheprovider tests"], {
      cwd: root,
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.match(out, /3 passed/);
  });
});
