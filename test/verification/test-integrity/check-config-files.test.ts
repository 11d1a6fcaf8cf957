import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openRepo } from "../../../src/git/repo.js";
import {
  checkConfigChanges,
  compareCheckConfig,
  isCheckConfigFile,
} from "../../../src/verification/strategies/test-integrity/check-config-files.js";
import { qualityCommandsChange } from "../../../src/verification/strategies/test-integrity/gantry-commands.js";
import { reachedScripts } from "../../../src/verification/strategies/test-integrity/package-scripts.js";
import { treeChanges } from "../../../src/verification/strategies/test-integrity/tree-diff.js";
import { git, write } from "../../support/fixture-repo.js";

const show = (found: { file: string; line?: number; evidence: string }[]) =>
  found.map((f) => `${f.file}${f.line ? `:${f.line}` : ""} ${f.evidence}`);
const check = (
  path: string,
  before: string | undefined,
  after: string | undefined,
  commands: string[] = [],
) => show(compareCheckConfig(path, before, after, commands, []));
const PKG = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ name: "p", scripts, ...extra }, null, 2)}\n`;

describe("lint / type-check configuration files", () => {
  it("knows the checkers' config files by name, anywhere in the tree", () => {
    for (const path of [
      "biome.json",
      "packages/web/biome.jsonc",
      ".eslintrc",
      ".eslintrc.cjs",
      "apps/x/.eslintrc.json",
      "eslint.config.mjs",
      "eslint.config.ts",
      ".eslintignore",
      ".oxlintrc.json",
      "tsconfig.json",
      "tsconfig.build.json",
      "packages/a/tsconfig-base.json",
      "jsconfig.json",
      ".prettierrc",
      ".prettierrc.yaml",
      "prettier.config.cjs",
      ".stylelintrc.json",
      ".dependency-cruiser.cjs",
      "ruff.toml",
      ".ruff.toml",
      "mypy.ini",
      ".flake8",
      "pyrightconfig.json",
      ".pylintrc",
      ".golangci.yml",
      "staticcheck.conf",
      "clippy.toml",
      "rustfmt.toml",
      ".rubocop.yml",
      ".swiftlint.yml",
      "phpstan.neon.dist",
      ".clang-tidy",
      "pyproject.toml",
      "setup.cfg",
      "tox.ini",
      "Cargo.toml",
      "package.json",
    ]) {
      assert.equal(isCheckConfigFile(path), true, path);
    }
    for (const path of [
      "src/tsconfig.ts",
      "biome.json.bak",
      "eslint.js",
      "README.md",
      "vitest.config.ts",
      "tsconfig",
    ]) {
      assert.equal(isCheckConfigFile(path), false, path);
    }
  });

  it("names the tool each whole config file belongs to", () => {
    const tools: [string, string][] = [
      ["biome.jsonc", "biome"],
      [".eslintrc.yml", "eslint"],
      ["eslint.config.cjs", "eslint"],
      [".eslintignore", "eslint"],
      ["oxlintrc.json", "oxlint"],
      ["jsconfig.json", "typescript"],
      [".prettierrc.json", "prettier"],
      ["prettier.config.mjs", "prettier"],
      [".prettierignore", "prettier"],
      [".stylelintrc", "stylelint"],
      ["stylelint.config.js", "stylelint"],
      [".dependency-cruiser.json", "dependency-cruiser"],
      [".ruff.toml", "ruff"],
      [".mypy.ini", "mypy"],
      [".flake8", "flake8"],
      ["pyrightconfig.json", "pyright"],
      ["pylintrc", "pylint"],
      [".golangci.toml", "golangci-lint"],
      ["staticcheck.conf", "staticcheck"],
      [".clippy.toml", "clippy"],
      [".rustfmt.toml", "rustfmt"],
      [".rubocop_todo.yml", "rubocop"],
      [".swiftlint.yaml", "swiftlint"],
      ["phpstan.neon", "phpstan"],
      ["phpcs.xml.dist", "phpcs"],
      [".clang-tidy", "clang-tidy"],
    ];
    for (const [path, tool] of tools) {
      assert.deepEqual(check(`sub/${path}`, "a\n", "b\n"), [
        `sub/${path}:1 ${path} (${tool} configuration) changed at line 1: b`,
      ]);
    }
    for (const path of [
      "xbiome.json",
      "biome.json5",
      "a.eslintrc",
      ".eslintrc.txt",
      "eslint.config.json",
      "tsconfig.json.bak",
      "mytsconfig.json",
      ".prettierrc.d.bak",
      "ruff.toml.orig",
      ".golangci.yml.bak",
      "golangci.yml",
      "rubocop.yml",
      "setup.cfg.bak",
      "package.json5",
    ]) {
      assert.equal(isCheckConfigFile(path), false, path);
      assert.deepEqual(check(path, "a", "b"), [], path);
    }
  });

  it("whole config names are matched whole: a prefix or a suffix makes another file; optional parts are optional", () => {
    const names = [
      "biome.json",
      ".eslintrc",
      ".eslintrc.yml",
      "eslint.config.js",
      ".eslintignore",
      "oxlintrc.json",
      ".oxlintrc.json",
      "tsconfig.json",
      ".prettierrc",

      "prettier.config.js",
      ".prettierignore",
      ".stylelintrc",
      "stylelint.config.ts",
      "stylelint.config.mjs",
      ".dependency-cruiser.js",
      ".dependency-cruiser.cjs",
      "ruff.toml",
      "mypy.ini",
      ".flake8",
      "pyrightconfig.json",
      "pylintrc",
      ".golangci.yml",
      "staticcheck.conf",
      "clippy.toml",
      "rustfmt.toml",
      ".rubocop.yml",
      ".swiftlint.yml",
      "phpstan.neon",
      "phpcs.xml",
      ".phpcs.xml.dist",
      ".clang-tidy",
    ];
    for (const name of names) {
      assert.equal(isCheckConfigFile(`a/${name}`), true, name);
      assert.equal(isCheckConfigFile(`a/x${name}`), false, `x${name}`);
      assert.equal(isCheckConfigFile(`a/${name}x`), false, `${name}x`);
    }
  });

  it("checker sections are matched whole by name; other sections of the same files are not findings", () => {
    const changed = (file: string, section: string) =>
      check(file, `[${section}]\na = 1\n`, `[${section}]\na = 2\n`).length;
    for (const section of [
      "flake8",
      "pycodestyle",
      "pydocstyle",
      "isort",
      "mypy",
      "mypy-app.*",
      "pylint",
      "pylint.MESSAGES CONTROL",
    ]) {
      assert.equal(changed("setup.cfg", section), 1, section);
      assert.equal(changed("tox.ini", section), 1, section);
      assert.equal(changed("setup.cfg", `x${section}`), 0, `x${section}`);
      assert.equal(
        changed("setup.cfg", `${section}x`),
        section.endsWith("*") || section.includes(".") || section.includes("-") ? 1 : 0,
        `${section}x`,
      );
    }
    assert.equal(changed("setup.cfg", "tool:isort"), 1);
    assert.equal(changed("tox.ini", "tool:isort"), 0, "tox.ini has no tool: sections");
    assert.equal(changed("setup.cfg", "metadata"), 0);
    assert.equal(changed("setup.cfg", "mypy-"), 0, "mypy- names no module");
    assert.equal(changed("setup.cfg", "pylint."), 0);
    for (const section of [
      "tool.ruff",
      "tool.mypy.overrides",
      "tool.basedpyright",
      "tool.black",
      "tool.pyre",
    ]) {
      assert.equal(changed("pyproject.toml", section), 1, section);
    }
    for (const section of ["xtool.ruff", "tool.ruffx", "tool.pytest.ini_options", "project"]) {
      assert.equal(changed("pyproject.toml", section), 0, section);
    }
    for (const section of ["lints", "lints.rust", "workspace.lints", "workspace.lints.clippy"]) {
      assert.equal(changed("Cargo.toml", section), 1, section);
    }
    for (const section of ["xlints", "lintsx", "package", "workspace"]) {
      assert.equal(changed("Cargo.toml", section), 0, section);
    }
    assert.deepEqual(check("pyproject.toml", '[tool.ruff]\nselect=["E"]\n', "[tool.ruff]\nselect=[]\n"), [
      "pyproject.toml:2 [tool.ruff] changed: select=[]",
    ]);
  });

  it("package.json: every checker key, and a deleted package.json's scripts", () => {
    for (const key of ["eslintConfig", "eslintIgnore", "prettier", "stylelint"]) {
      assert.deepEqual(check("package.json", PKG({}), PKG({}, { [key]: 1 })), [
        `package.json:4 the "${key}" checker config changed`,
      ]);
    }
    assert.deepEqual(check("package.json", PKG({ lint: "biome lint" }), undefined), [
      'package.json scripts.lint: removed (was "biome lint")',
    ]);
  });

  it("a whole config file added, deleted or changed: the first changed line, the tool named", () => {
    const was = '{\n  "compilerOptions": {\n    "strict": true\n  }\n}\n';
    const now = '{\n  "compilerOptions": {\n    "strict": false,\n    "skipLibCheck": true\n  }\n}\n';
    assert.deepEqual(check("tsconfig.json", was, now), [
      'tsconfig.json:3 tsconfig.json (typescript configuration) changed at line 3: "strict": false,',
    ]);
    assert.deepEqual(check("biome.json", undefined, "{}"), [
      "biome.json biome.json (biome configuration) added",
    ]);
    assert.deepEqual(check("a/.eslintrc.json", "{}", undefined), [
      "a/.eslintrc.json .eslintrc.json (eslint configuration) deleted",
    ]);
    assert.deepEqual(check("tsconfig.json", was, was), []);
  });

  it("shared files: only the checkers' sections count (pyproject, setup.cfg, tox.ini, Cargo.toml)", () => {
    const pyproject = (ruff: string, version: string) =>
      `[project]\nname = "p"\nversion = "${version}"\n\n[tool.ruff]\nline-length = 100\n\n[tool.ruff.lint]\nselect = [${ruff}]\n\n[tool.pytest.ini_options]\naddopts = "-q"\n`;
    assert.deepEqual(check("pyproject.toml", pyproject('"E", "F"', "1"), pyproject('"E", "F"', "2")), []);
    assert.deepEqual(check("pyproject.toml", pyproject('"E", "F"', "1"), pyproject("", "1")), [
      "pyproject.toml:9 [tool.ruff.lint] changed: select = []",
    ]);
    assert.deepEqual(
      check(
        "pyproject.toml",
        "[tool.ruff]\nline-length = 88\n\n[tool.ruff.lint]\nselect = []\n",
        "[tool.ruff]\nline-length = 200\n\n[tool.ruff.lint]\nselect = []\n",
      ),
      ["pyproject.toml:2 [tool.ruff] changed: line-length = 200"],
      "the section the change is in, not the last one",
    );
    const mypy = (strict: string) => `[project]\nname = "p"\n\n[tool.mypy]\nstrict = ${strict}\n`;
    assert.deepEqual(check("pyproject.toml", mypy("true"), mypy("false")), [
      "pyproject.toml:5 [tool.mypy] changed: strict = false",
    ]);
    const cfg = (flake8: string) =>
      `[metadata]\nname = p\n\n[flake8]\nmax-line-length = ${flake8}\n\n[mypy-vendor.*]\nignore_errors = True\n`;
    assert.deepEqual(check("setup.cfg", cfg("88"), cfg("200")), [
      "setup.cfg:5 [flake8] changed: max-line-length = 200",
    ]);
    assert.deepEqual(check("setup.cfg", cfg("88"), `${cfg("88")}\n[mypy-app.*]\nignore_errors = True\n`), [
      "setup.cfg:10 [mypy-app.*] changed: [mypy-app.*]",
    ]);
    assert.deepEqual(check("tox.ini", "[tox]\nenv = a\n", "[tox]\nenv = b\n"), []);
    assert.deepEqual(check("tox.ini", "[flake8]\nselect = E\n", "[flake8]\nselect = \n"), [
      "tox.ini:2 [flake8] changed: select =",
    ]);
    const cargo = (lints: string) => `[package]\nname = "p"\n\n[lints.clippy]\n${lints}\n`;
    assert.deepEqual(check("Cargo.toml", cargo('all = "deny"'), cargo('all = "allow"')), [
      'Cargo.toml:5 [lints.clippy] changed: all = "allow"',
    ]);
    assert.deepEqual(check("Cargo.toml", '[workspace.lints.rust]\nunsafe_code = "forbid"\n', ""), [
      "Cargo.toml [workspace.lints.rust] changed: (removed: [workspace.lints.rust])",
    ]);
    assert.deepEqual(check("Cargo.toml", '[package]\nversion = "1"\n', '[package]\nversion = "2"\n'), []);
  });

  it("package.json: lint* / typecheck* scripts, the scripts the check commands reach, and the checker keys", () => {
    const was = PKG({
      lint: "biome check .",
      typecheck: "tsc",
      check: "eslint .",
      build: "tsc -b",
      test: "node --test",
    });
    assert.deepEqual(
      check(
        "package.json",
        was,
        PKG({
          lint: "true",
          typecheck: "tsc",
          check: "eslint src",
          build: "tsc -b",
          test: "node --test",
          "lint:fix": "x",
        }),
      ),
      [
        'package.json:4 scripts.lint: "biome check ." → "true"',
        'package.json:9 scripts.lint:fix: added as "x"',
      ],
      "check is not reached while no command names it",
    );
    assert.deepEqual(
      check(
        "package.json",
        was,
        PKG({ lint: "biome check .", typecheck: "tsc", check: "true", build: "tsc", test: "x" }),
        ["npm run check"],
      ),
      ['package.json:6 scripts.check: "eslint ." → "true"'],
      "a script the lint command reaches counts; build and test are not check scripts",
    );
    assert.deepEqual(
      show(
        compareCheckConfig(
          "package.json",
          PKG({ test: "npm run lint", lint: "biome check" }),
          PKG({ test: "npm run lint", lint: "true" }),
          ["npm run lint"],
          ["npm test"],
        ),
      ),
      [],
      "a script the test command reaches is the test-config check's finding",
    );
    assert.deepEqual(
      check(
        "package.json",
        PKG({}, { eslintConfig: { rules: { a: 2 } }, version: "1" }),
        PKG({}, { eslintConfig: { rules: { a: 0 } }, version: "2" }),
      ),
      ['package.json:4 the "eslintConfig" checker config changed'],
    );
    assert.deepEqual(
      check("package.json", PKG({ lint: "x" }), "{ not json"),
      [],
      "the test-config check reports it",
    );
    assert.deepEqual(check("package.json", "{ not json", PKG({ lint: "x" })), []);
    assert.deepEqual(check("package.json", undefined, PKG({ typecheck: "tsc" })), [
      'package.json:4 scripts.typecheck: added as "tsc"',
    ]);
  });

  it("reachedScripts follows npm, pnpm, yarn and bun through the scripts, from both sides", () => {
    assert.deepEqual(
      reachedScripts(["pnpm run verify"], /^lint$/, [
        {
          verify: "yarn types && bun run style",
          types: "tsc",
          style: "npm run-script fmt",
          fmt: "x",
          other: "y",
        },
        { lint: "z" },
      ]),
      ["fmt", "lint", "style", "types", "verify"],
    );
    assert.deepEqual(reachedScripts(["npm t"], /^$/, [{ test: "a" }]), ["test"]);
  });
});

describe("lint / type-check configuration changes (a real repository)", () => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-check-config-")));
  after(() => rmSync(work, { recursive: true, force: true }));

  it("quality.commands compared for some commands only: the others' changes are not seen, nor the run's own edit", async () => {
    const root = join(work, "commands");
    mkdirSync(root);
    git(root, "init", "-q", "-b", "main");
    const config = (commands: Record<string, string>) =>
      `${JSON.stringify({ quality: { commands } }, null, 2)}\n`;
    const was = { test: "node --test", lint: "biome lint", typecheck: "tsc" };
    write(root, ".gantry/config.json", config(was));
    git(root, "add", "-A");
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
    const base = git(root, "rev-parse", "HEAD");
    const checks = (key: string) => key === "lint" || key === "typecheck";
    const tests = (key: string) => !checks(key);
    write(root, ".gantry/config.json", config({ ...was, lint: "true" }));
    assert.deepEqual(await qualityCommandsChange({ root, base, loaded: was, only: checks }), {
      file: ".gantry/config.json",
      line: 5,
      evidence: 'quality.commands.lint: "biome lint" → "true"',
    });
    assert.equal(await qualityCommandsChange({ root, base, loaded: was, only: tests }), undefined);
    // The user changed the test command before the run; the story changed the lint command.
    const loaded = { ...was, test: "node --test test/" };
    write(root, ".gantry/config.json", config({ ...loaded, lint: "true" }));
    assert.equal(await qualityCommandsChange({ root, base, loaded, only: tests }), undefined);
    assert.match(
      (await qualityCommandsChange({ root, base, loaded, only: checks }))?.evidence ?? "",
      /^quality\.commands\.lint:/,
    );
    write(root, ".gantry/config.json", "{ not json");
    assert.match(
      (await qualityCommandsChange({ root, base, loaded, only: checks }))?.evidence ?? "",
      /no longer valid JSON/,
    );
    write(root, ".gantry/config.json", `${JSON.stringify({ quality: { commands: "x" } })}\n`);
    assert.equal(
      (await qualityCommandsChange({ root, base, loaded, only: checks }))?.evidence,
      'quality.commands.lint: "biome lint" → null; quality.commands.typecheck: "tsc" → null',
    );
  });

  it("reads both sides from git: renamed away, renamed into place, changed, and unrelated files", async () => {
    const root = join(work, "repo");
    mkdirSync(root);
    git(root, "init", "-q", "-b", "main");
    const files: Record<string, string> = {
      "biome.json": '{ "linter": { "enabled": true } }\n',
      "web/tsconfig.json": '{ "compilerOptions": { "strict": true } }\n',
      "ruff.draft": "line-length = 80\n",
      "src/a.ts": "export const a = 1;\n",
      "package.json": PKG({ lint: "biome check ." }),
    };
    for (const [path, text] of Object.entries(files)) write(root, path, text);
    git(root, "add", "-A");
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
    const base = git(root, "rev-parse", "HEAD");
    git(root, "mv", "biome.json", "biome.json.off");
    git(root, "mv", "ruff.draft", "ruff.toml");
    write(root, "web/tsconfig.json", '{ "compilerOptions": { "strict": false } }\n');
    write(root, "src/a.ts", "export const a = 2;\n");
    const { tree } = await (await openRepo(root)).judge();
    const changes = await treeChanges(root, base, tree);
    const found = await checkConfigChanges({
      root,
      base,
      tree,
      changes,
      checkCommands: ["npm run lint"],
      testCommands: [],
    });
    assert.deepEqual(show(found).sort(), [
      "biome.json biome.json (biome configuration) deleted",
      "ruff.toml ruff.toml (ruff configuration) added",
      'web/tsconfig.json:1 tsconfig.json (typescript configuration) changed at line 1: { "compilerOptions": { "strict": false } }',
    ]);
  });
});
