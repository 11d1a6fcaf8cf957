import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openRepo } from "../../../src/git/repo.js";
import { checkConfigChanges } from "../../../src/verification/strategies/test-integrity/check-config-files.js";
import {
  CHECK_SCRIPT,
  configFlagPaths,
  isNamed,
  mayBeConfig,
  namedCheckConfigs,
} from "../../../src/verification/strategies/test-integrity/named-configs.js";
import { treeChanges } from "../../../src/verification/strategies/test-integrity/tree-diff.js";
import { git, write } from "../../support/fixture-repo.js";

describe("config files the lint / type-check commands name", () => {
  it("reads the path after -c, -p, --config, --config-file, --config-path, --project, --rcfile, --ignore-path, --tsconfig", () => {
    assert.deepEqual(
      configFlagPaths([
        "eslint -c lint/rules.cjs src",
        "tsc -p ./config/tsconfig.app.json --noEmit",
        "mypy --config-file=tools/mypy.cfg pkg",
        'pylint --rcfile "tools/pylint rc" pkg',
        "biome check --config-path=tools/biome/ .",
        "tsc --project types/tsc.json && eslint --ignore-path=.lintignore .",
        "ruff check --config 'ruff-ci.toml'",
        "x --settings-path=isort.cfg; y --tsconfig tsc/a.json",
      ]),
      [
        ".lintignore",
        "config/tsconfig.app.json",
        "isort.cfg",
        "lint/rules.cjs",
        "ruff-ci.toml",
        "tools/biome/",
        "tools/mypy.cfg",
        "tools/pylint rc",
        "tsc/a.json",
        "types/tsc.json",
      ],
    );
    assert.deepEqual(
      configFlagPaths([
        "tsc -p .",
        "tsc -p ./",
        "eslint -c ../shared.cjs",
        "eslint -c /etc/x",
        "eslint --cache src",
        "x-c y",
      ]),
      [],
      "the project itself, paths outside it, and flags that only look alike",
    );
  });

  it("flags at the start, blanks of any length, quoted paths with blanks or quotes inside, --settings", () => {
    assert.deepEqual(
      configFlagPaths([
        "-p first.json",
        "eslint -c    spaced.cjs",
        "ruff --config 'with blank.toml'",
        `x --config "it's.json"`,
        "isort --settings s.cfg",
      ]),
      ["first.json", "it's.json", "s.cfg", "spaced.cjs", "with blank.toml"],
    );
  });

  it("which script names are lint / type-check scripts by name", () => {
    for (const name of [
      "lint",
      "prelint",
      "postlint",
      "lint:fix",
      "lint.ci",
      "lint_x",
      "lint-y",
      "typecheck",
      "type-check",
      "check-types",
      "types",
      "tsc",
      "pretypecheck",
    ]) {
      assert.equal(CHECK_SCRIPT.test(name), true, name);
    }
    for (const name of ["bloblint", "lintx", "linting", "xtypecheck", "tscx", "check", "build", "test"]) {
      assert.equal(CHECK_SCRIPT.test(name), false, name);
    }
  });

  it("which changed files may be configs (and make package.json worth reading)", () => {
    for (const path of [
      "a.json",
      "a.json5",
      "a.jsonc",
      "b.yml",
      "b.yaml",
      "c.toml",
      "d.ini",
      "e.cfg",
      "f.conf",
      "g.neon",
      "h.xml",
      "x/.babelrc",
      "Makefile",
      "src/lint/rules.cjs",
      "app.CONFIG.ts",
      "checks.py",
    ]) {
      assert.equal(mayBeConfig(path), true, path);
    }
    for (const path of [
      "src/a.ts",
      "README.md",
      "notes.yaml.md",
      "src/x.js",
      "doc.txt",
      "a.json.bak",
      "src/cfg.",
    ]) {
      assert.equal(mayBeConfig(path), false, path);
    }
  });

  it("a named folder holds its files; a name is not a prefix of another", () => {
    assert.equal(isNamed("tools/biome/biome.json", ["tools/biome/"]), true);
    assert.equal(isNamed("lint/rules.cjs", ["lint/rules.cjs"]), true);
    assert.equal(isNamed("lint/rules.cjs.bak", ["lint/rules.cjs"]), false);
    assert.equal(isNamed("tools/biomes/x.json", ["tools/biome/"]), false);
    assert.equal(isNamed("b.json", ["a.json", "b.json"]), true, "any of the names");
  });

  const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-named-configs-")));
  after(() => rmSync(work, { recursive: true, force: true }));

  it("through package.json scripts: a changed named file is a finding; a story of source files reads nothing", async () => {
    const root = join(work, "repo");
    mkdirSync(root);
    git(root, "init", "-q", "-b", "main");
    write(
      root,
      "package.json",
      `${JSON.stringify({ scripts: { lint: "npm run lint:js", "lint:js": "eslint -c lint/rules.cjs src" } })}\n`,
    );
    write(root, "lint/rules.cjs", "module.exports = { rules: { eqeqeq: 2 } };\n");
    write(root, "src/a.ts", "export const a = 1;\n");
    git(root, "add", "-A");
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
    const base = git(root, "rev-parse", "HEAD");
    const judged = async () => {
      const { tree } = await (await openRepo(root)).judge();
      return { tree, changes: await treeChanges(root, base, tree) };
    };

    write(root, "src/a.ts", "export const a = 2;\n");
    write(root, "README.md", "# a\n");
    write(root, "notes/plan.txt", "x\n");
    const code = await judged();
    assert.deepEqual(await namedCheckConfigs({ root, ...code, checkCommands: ["npm run lint"] }), []);
    assert.deepEqual(
      await namedCheckConfigs({ root, ...code, checkCommands: ["eslint -c ci.cjs", "npm run lint"] }),
      ["ci.cjs"],
      "the commands' own flags need no read",
    );

    for (const path of [
      "data/a.yaml",
      "x/.babelrc",
      "Makefile",
      "src/checks.ts",
      "app.config.ts",
      "a/.eslintrc.js",
    ]) {
      write(root, path, "x\n");
      assert.deepEqual(
        await namedCheckConfigs({ root, ...(await judged()), checkCommands: ["npm run lint"] }),
        ["lint/rules.cjs"],
        `${path} may be a config: package.json is read`,
      );
      rmSync(join(root, path));
    }
    write(root, "lint/rules.cjs", "module.exports = { rules: { eqeqeq: 0 } };\n");
    const config = await judged();
    assert.deepEqual(await namedCheckConfigs({ root, ...config, checkCommands: ["npm run lint"] }), [
      "lint/rules.cjs",
    ]);
    const found = await checkConfigChanges({
      root,
      base,
      ...config,
      checkCommands: ["npm run lint"],
      testCommands: [],
    });
    assert.deepEqual(
      found.map((f) => `${f.file}:${f.line} ${f.evidence}`),
      [
        "lint/rules.cjs:1 lint/rules.cjs (named by the lint / type-check command as its configuration) changed at line 1: module.exports = { rules: { eqeqeq: 0 } };",
      ],
    );
    assert.deepEqual(
      (await checkConfigChanges({ root, base, ...config, checkCommands: [], testCommands: [] })).map(
        (f) => f.file,
      ),
      ["lint/rules.cjs"],
      "a lint* script is followed by its name, with no check command configured too",
    );
    assert.deepEqual(
      await namedCheckConfigs({ root, ...config, checkCommands: ["npx tsc -p tsconfig.json"] }),
      ["lint/rules.cjs", "tsconfig.json"],
    );
  });
});
