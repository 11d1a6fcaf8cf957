// `gantry init` through the built CLI on small real projects: what it proposes, what it says is missing,
// and a lint that already fails before any story.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { findOnPath } from "../../src/process/find-executable.js";
import { gantry, git } from "./harness.js";

/** node and the system's programs; no ~/.local, pyenv or node_modules tools, so what is missing is known. */
const PATH = `${dirname(process.execPath)}:/usr/bin:/bin`;

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-init-e2e-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  git(root, "init", "-q", "-b", "main");
  git(root, "add", "-A");
  git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
  return root;
}

describe("gantry init (built CLI)", { concurrency: true, timeout: 120_000 }, () => {
  it("takes the lint script, names a program that is not installed, and warns that lint already fails", async () => {
    const root = repo({
      "package.json": `${JSON.stringify({
        type: "module",
        scripts: { test: "node --test", lint: "node lint.mjs" },
        devDependencies: { typescript: "^5.0.0" },
      })}\n`,
      "tsconfig.json": "{}\n",
      "lint.mjs": 'console.log("src/a.js:3 no-unused-vars: x is never read");\nprocess.exit(1);\n',
    });
    const result = await gantry(root, ["init"], { env: { PATH } });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^ {2}lint: npm run lint \(scripts\.lint in package\.json\)$/m);
    assert.equal(
      JSON.parse(readFileSync(join(root, ".gantry/config.json"), "utf8")).quality.commands.lint,
      "npm run lint",
    );
    assert.match(
      result.stdout,
      /^warning: quality\.commands\.typecheck needs tsc \(npx\), not installed here: install it or change the command$/m,
    );
    assert.match(
      result.stdout,
      /^warning: lint already fails on the project as it is( \(in the judging sandbox\))? \(npm run lint: exit code 1\), before any story: every story would fail review and be blamed for it; fix it or change quality\.commands\.lint; it printed:$/m,
    );
    assert.match(result.stdout, /^ {4}src\/a\.js:3 no-unused-vars: x is never read$/m);
    assert.doesNotMatch(result.stdout, /typecheck (passes|already fails)/, "a missing program is not run");
  });

  it("a Python tests/ folder with no manifest proposes pytest; ruff and mypy that are not installed are named", async () => {
    const bare = repo({ "tests/test_calc.py": "def test_add():\n    assert 1 + 1 == 2\n", "calc.py": "" });
    const plain = await gantry(bare, ["init"], { env: { PATH } });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^detected: python \(tests\/\)$/m);
    assert.match(
      plain.stdout,
      /^ {2}test: python -m pytest \(Python tests in tests\/ \(pytest collects them; no manifest\)\)$/m,
    );

    const tooled = repo({
      "pyproject.toml":
        '[project]\nname = "calc"\n\n[tool.ruff]\nline-length = 100\n\n[tool.mypy]\nstrict = true\n',
      "calc.py": "",
    });
    const result = await gantry(tooled, ["init"], { env: { PATH } });
    assert.equal(result.code, 0, result.stderr);
    for (const [key, program] of [
      ["lint", "ruff"],
      ["typecheck", "mypy"],
    ] as const) {
      if (findOnPath(program, PATH)) continue;
      assert.match(
        result.stdout,
        new RegExp(`^warning: quality\\.commands\\.${key} needs ${program}, not installed here`, "m"),
      );
    }
  });
});
