import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openRepo } from "../../../src/git/repo.js";
import { qualityCommandsChange } from "../../../src/verification/strategies/test-integrity/gantry-commands.js";
import {
  testConfigChanges,
  testScripts,
} from "../../../src/verification/strategies/test-integrity/test-config-files.js";
import { treeChanges } from "../../../src/verification/strategies/test-integrity/tree-diff.js";
import { git, write } from "../../support/fixture-repo.js";

const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-integrity-config-")));
after(() => rmSync(work, { recursive: true, force: true }));

let repos = 0;
/** A committed repository holding `files`; returns its root and base commit. */
function repo(files: Record<string, string>): { root: string; base: string } {
  const root = join(work, `repo-${++repos}`);
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.name", "Test");
  git(root, "config", "user.email", "test@example.com");
  for (const [path, text] of Object.entries(files)) write(root, path, text);
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  return { root, base: git(root, "rev-parse", "HEAD") };
}

/** The config findings for the working tree as gantry judges it, against `base`. */
async function findings(root: string, base: string, testCommands = ["npm test"]): Promise<string[]> {
  const { tree } = await (await openRepo(root)).judge();
  const changes = await treeChanges(root, base, tree);
  const found = await testConfigChanges({ root, base, tree, changes, testCommands });
  return found.map((f) => `${f.file}${f.line ? `:${f.line}` : ""} ${f.evidence}`);
}

const PKG = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ name: "p", type: "module", scripts, ...extra }, null, 2)}\n`;

describe("test configuration changes (real repositories)", () => {
  it("package.json: a rewritten test script is a finding with the line and both values", async () => {
    const { root, base } = repo({ "package.json": PKG({ test: "node --test test/", build: "tsc" }) });
    write(root, "package.json", PKG({ test: "echo 1 passed", build: "tsc" }));
    assert.deepEqual(await findings(root, base), [
      'package.json:5 scripts.test: "node --test test/" → "echo 1 passed"',
    ]);
  });

  it("package.json: scripts the test command reaches through npm run count; unrelated scripts do not", async () => {
    const { root, base } = repo({
      "package.json": PKG({ ci: "npm run unit", unit: "vitest run", build: "tsc", lint: "biome check" }),
    });
    write(root, "package.json", PKG({ ci: "npm run unit", unit: "true", build: "tsc -b", lint: "true" }));
    assert.deepEqual(await findings(root, base, ["npm run ci"]), [
      'package.json:6 scripts.unit: "vitest run" → "true"',
    ]);
    assert.deepEqual(testScripts(["npm run ci"], { ci: "npm run unit && npm test", unit: "x", other: "y" }), [
      "ci",
      "test",
      "unit",
    ]);
  });

  it("package.json: an added pretest script and a changed jest key are findings; a version bump is not", async () => {
    const { root, base } = repo({
      "package.json": PKG({ test: "jest" }, { version: "1.0.0", jest: { bail: 1 } }),
    });
    write(
      root,
      "package.json",
      PKG({ test: "jest", pretest: "exit 0" }, { version: "1.1.0", jest: { testMatch: [] } }),
    );
    const found = await findings(root, base);
    assert.equal(found.length, 2, found.join("\n"));
    assert.match(found[0] ?? "", /scripts\.pretest: added as "exit 0"/);
    assert.match(found[1] ?? "", /the "jest" runner config changed/);
    write(root, "package.json", PKG({ test: "jest" }, { version: "2.0.0", jest: { bail: 1 } }));
    assert.deepEqual(await findings(root, base), []);
  });

  it("vitest.config, jest.config, .mocharc, pytest.ini, conftest.py: added, changed and deleted", async () => {
    const { root, base } = repo({
      "vitest.config.ts": "export default { test: { include: ['test/**'] } };\n",
      "jest.config.js": "module.exports = {};\n",
      "pytest.ini": "[pytest]\naddopts = -q\n",
    });
    write(root, "vitest.config.ts", "export default { test: { include: ['nothing/**'] } };\n");
    unlinkSync(join(root, "jest.config.js"));
    write(root, ".mocharc.yml", "spec: none\n");
    write(root, "tests/conftest.py", "def pytest_collection_modifyitems(items):\n    items.clear()\n");
    assert.deepEqual(await findings(root, base), [
      ".mocharc.yml .mocharc.yml added: it configures the tests",
      "jest.config.js jest.config.js deleted: it configures the tests",
      "tests/conftest.py conftest.py added: it configures the tests",
      "vitest.config.ts:1 vitest.config.ts changed at line 1: export default { test: { include: ['nothing/**'] } };",
    ]);
  });

  it("a config renamed to a name no runner reads is deleted; a file renamed to a config's name is added", async () => {
    const { root, base } = repo({
      "pytest.ini": "[pytest]\naddopts = -q\n",
      "config/vitest.config.ts.off": "export default { test: { include: ['x'] } };\n",
    });
    git(root, "mv", "pytest.ini", "pytest.ini.bak");
    git(root, "mv", "config/vitest.config.ts.off", "config/vitest.config.ts");
    assert.deepEqual((await findings(root, base)).sort(), [
      "config/vitest.config.ts vitest.config.ts added: it configures the tests",
      "pytest.ini pytest.ini deleted: it configures the tests",
    ]);
  });

  it("pyproject.toml, setup.cfg, tox.ini: only the pytest section counts", async () => {
    const { root, base } = repo({
      "pyproject.toml": '[project]\nname = "p"\nversion = "1"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
      "setup.cfg": "[metadata]\nname = p\n\n[tool:pytest]\ntestpaths = tests\n",
      "tox.ini": "[tox]\nenvlist = py3\n",
    });
    write(
      root,
      "pyproject.toml",
      '[project]\nname = "p"\nversion = "2"\n\n[tool.pytest.ini_options]\naddopts = "-q -k nothing"\n',
    );
    write(root, "setup.cfg", "[metadata]\nname = q\n\n[tool:pytest]\ntestpaths = tests\n");
    write(root, "tox.ini", "[tox]\nenvlist = py3\n\n[pytest]\naddopts = --co\n");
    assert.deepEqual(await findings(root, base), [
      'pyproject.toml:6 [tool.pytest.ini_options] changed: addopts = "-q -k nothing"',
      "tox.ini:4 [pytest] changed: [pytest]",
    ]);
  });

  it("vite.config: a change outside the test block is not a finding; inside it is", async () => {
    const config = (port: number, include: string) =>
      `export default {\n  server: { port: ${port} },\n  test: {\n    include: ["${include}"],\n  },\n};\n`;
    const { root, base } = repo({ "vite.config.ts": config(3000, "test/**") });
    write(root, "vite.config.ts", config(4000, "test/**"));
    assert.deepEqual(await findings(root, base), []);
    write(root, "vite.config.ts", config(4000, "none/**"));
    const found = await findings(root, base);
    assert.equal(found.length, 1);
    assert.match(
      found[0] ?? "",
      /^vite\.config\.ts:3 the test block of vite\.config\.ts changed: test: \{ include: \["none\/\*\*"\], \}/,
    );
  });

  it("quality.commands: a change against the base commit counts unless the run loaded that config itself", async () => {
    const config = (test: string) =>
      `${JSON.stringify({ quality: { commands: { test, lint: "biome" } } }, null, 2)}\n`;
    const { root, base } = repo({ ".gantry/config.json": config("node --test test/") });
    const loaded = { test: "node --test test/", lint: "biome" };
    assert.equal(await qualityCommandsChange({ root, base, loaded }), undefined);
    write(root, ".gantry/config.json", config("echo 1 passed"));
    assert.deepEqual(await qualityCommandsChange({ root, base, loaded }), {
      file: ".gantry/config.json",
      line: 4,
      evidence: 'quality.commands.test: "node --test test/" → "echo 1 passed"',
    });
    // The user's own edit before the run: the run loaded it, so it is not the story's doing.
    assert.equal(
      await qualityCommandsChange({ root, base, loaded: { test: "echo 1 passed", lint: "biome" } }),
      undefined,
    );
    // Committed by the agent itself: HEAD moved, but the base commit is still the story's.
    git(root, "commit", "-qam", "agent");
    const head = git(root, "rev-parse", "HEAD");
    assert.match(
      (await qualityCommandsChange({ root, base, head, loaded }))?.evidence ?? "",
      /echo 1 passed/,
    );
    // ...and still found there when the file on disk was put back afterwards.
    write(root, ".gantry/config.json", config("node --test test/"));
    assert.match(
      (await qualityCommandsChange({ root, base, head, loaded }))?.evidence ?? "",
      /"echo 1 passed" \(committed at [0-9a-f]{12}\)$/,
    );
    assert.equal(await qualityCommandsChange({ root, base, loaded }), undefined);
    write(root, ".gantry/config.json", "{ not json");
    assert.match(
      (await qualityCommandsChange({ root, base, loaded }))?.evidence ?? "",
      /no longer valid JSON/,
    );
  });

  it("quality.commands: every changed key in order with its line under commands; no config, or one unreadable all along, is no change", async () => {
    const text = (commands: Record<string, string>) =>
      `${JSON.stringify({ verify: { lint: "x" }, quality: { commands } }, null, 2)}\n`;
    const { root, base } = repo({ ".gantry/config.json": text({ test: "node --test", lint: "biome" }) });
    write(root, ".gantry/config.json", text({ test: "true", lint: "true" }));
    assert.deepEqual(
      await qualityCommandsChange({ root, base, loaded: { test: "node --test", lint: "biome" } }),
      {
        file: ".gantry/config.json",
        line: 8,
        evidence: 'quality.commands.lint: "biome" → "true"; quality.commands.test: "node --test" → "true"',
      },
    );
    write(root, ".gantry/config.json", text({ test: 1 as unknown as string, lint: "biome" }));
    assert.equal(
      (await qualityCommandsChange({ root, base, loaded: { test: "node --test", lint: "biome" } }))?.evidence,
      'quality.commands.test: "node --test" → "1"',
    );
    const numbers = repo({ ".gantry/config.json": text({ test: "1" }) });
    write(numbers.root, ".gantry/config.json", text({ test: 1 as unknown as string }));
    assert.deepEqual(await qualityCommandsChange({ root: numbers.root, base: numbers.base, loaded: {} }), {
      file: ".gantry/config.json",
      evidence: "quality.commands changed",
    });
    rmSync(join(numbers.root, ".gantry/config.json"));
    assert.equal(
      (await qualityCommandsChange({ root: numbers.root, base: numbers.base, loaded: { test: "1" } }))
        ?.evidence,
      'quality.commands.test: "1" → null',
      "the config deleted: its commands are gone, not unreadable",
    );
    const noQuality = repo({ ".gantry/config.json": '{ "quality": "none" }\n' });
    write(noQuality.root, ".gantry/config.json", '{ "agent": {} }\n');
    assert.equal(
      await qualityCommandsChange({ root: noQuality.root, base: noQuality.base, loaded: {} }),
      undefined,
    );
    const none = repo({ "src/a.js": "a\n" });
    assert.equal(await qualityCommandsChange({ root: none.root, base: none.base, loaded: {} }), undefined);
    const broken = repo({ ".gantry/config.json": "{ broken" });
    assert.equal(
      await qualityCommandsChange({ root: broken.root, base: broken.base, loaded: {} }),
      undefined,
    );
  });
});
