// `gantry init` (built CLI) on a Python project with a virtualenv of its own: the commands run that
// virtualenv's python, the folder is ignored, and the worktree setup makes a virtualenv as the project's was.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { findOnPath } from "../../../src/process/find-executable.js";
import { gantry, git } from "../../e2e/harness.js";
import { committedRepo } from "../../support/git-fixtures.js";

const python = findOnPath("python3");
const skip = python ? false : "python3 is not installed";

describe("gantry init on a Python project with its own virtualenv (built CLI)", { timeout: 120_000 }, () => {
  it("writes .venv's python into the test commands, ignores .venv/, and proposes a worktree setup made like the project's venv", {
    skip,
  }, async () => {
    const root = committedRepo({
      "pyproject.toml": '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      "src/calc/__init__.py": "",
      "tests/test_calc.py": "def test_one():\n    assert True\n",
      ".gitignore": "__pycache__/\n",
    });
    execFileSync(python as string, [
      "-m",
      "venv",
      "--without-pip",
      "--system-site-packages",
      join(root, ".venv"),
    ]);
    // pip's editable install of the project: a .pth naming its src.
    const site = execFileSync(
      join(root, ".venv/bin/python"),
      ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
      {
        encoding: "utf8",
      },
    ).trim();
    writeFileSync(join(site, "__editable__.calc-0.1.pth"), `${root}/src\n`);
    const result = await gantry(root, ["init"]);
    assert.equal(result.code, 0, result.stderr);
    const config = JSON.parse(readFileSync(join(root, ".gantry/config.json"), "utf8"));
    assert.equal(config.quality.commands.test, ".venv/bin/python -m pytest");
    assert.equal(config.quality.commands.testScoped, ".venv/bin/python -m pytest {{files}}");
    assert.match(
      config.execution.worktreeSetup,
      /^\S+ -m venv --system-site-packages \.venv && \.venv\/bin\/pip install -e \.$/,
    );
    assert.match(
      result.stdout,
      /^ {2}execution\.worktreeSetup: .* -m venv --system-site-packages \.venv .*docs\/parallel\.md\)$/m,
    );
    assert.match(result.stdout, /^updated \.gitignore: \.gantry\/runs\/, \.gantry\/lock, \.venv\/$/m);
    assert.equal(git(root, "status", "--porcelain", "--untracked-files=all", "--", ".venv"), "");
  });
});
