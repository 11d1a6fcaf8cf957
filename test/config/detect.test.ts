import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { type Detection, detectProject } from "../../src/config/detect/index.js";
import { nodeTestCommand, scriptSegments } from "../../src/config/detect/node-script.js";
import { scanIni, scanRequirements, scanToml } from "../../src/config/detect/python-manifests.js";
import { InputError } from "../../src/config/input-error.js";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A fixture project in a temporary directory: path → content (objects are written as JSON). */
function project(files: Record<string, string | object>): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-detect-"));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === "string" ? content : JSON.stringify(content, null, 2));
  }
  return root;
}

/** key → command, for the keys that were found. */
const commands = (d: Detection): Record<string, string> =>
  Object.fromEntries(Object.entries(d.commands).map(([key, found]) => [key, found.command]));
const source = (d: Detection, key: keyof Detection["commands"]): string | undefined =>
  d.commands[key]?.source;
const allNotes = (d: Detection): string => [...d.stacks.flatMap((s) => s.notes), ...d.notes].join("\n");

const PLACEHOLDER = 'echo "Error: no test specified" && exit 1';

describe("detecting a node project", () => {
  it("vitest + biome + typescript: npm test for the suite, vitest for scoped runs, tsc, biome", () => {
    const d = detectProject(
      project({
        "package.json": {
          scripts: { test: "vitest" },
          devDependencies: { vitest: "^3.0.0", "@biomejs/biome": "2.0.0", typescript: "^5.6.0" },
        },
        "tsconfig.json": "{}",
      }),
    );
    assert.equal(d.primary, "node");
    assert.deepEqual(commands(d), {
      test: "npm test",
      testScoped: "npx vitest run {{files}}",
      lint: "npx biome check .",
      lintFix: "npx biome check --write .",
      typecheck: "npx tsc --noEmit",
      formatFix: "npx biome format --write .",
    });
    assert.equal(source(d, "test"), "scripts.test in package.json, runs vitest");
    assert.equal(source(d, "testScoped"), "vitest in scripts.test");
    assert.equal(source(d, "lint"), "@biomejs/biome in devDependencies");
    assert.equal(source(d, "typecheck"), "typescript in devDependencies, tsconfig.json");
    assert.deepEqual(d.missing, []);
  });

  it("vitest without a test script: npx vitest run, found from devDependencies", () => {
    const d = detectProject(project({ "package.json": { devDependencies: { vitest: "3" } } }));
    assert.equal(d.commands.test?.command, "npx vitest run");
    assert.equal(source(d, "test"), "vitest in devDependencies");
    assert.equal(d.commands.testScoped?.command, "npx vitest run {{files}}");
  });

  it("jest + eslint + prettier, no typescript: eslint lints, prettier formats, no typecheck", () => {
    const d = detectProject(
      project({
        "package.json": {
          scripts: { test: "jest --coverage" },
          devDependencies: { jest: "29", eslint: "9", prettier: "3" },
        },
        "eslint.config.js": "export default [];\n",
      }),
    );
    assert.deepEqual(commands(d), {
      test: "npm test",
      testScoped: "npx jest {{files}}",
      lint: "npx eslint . && npx prettier --check .",
      lintFix: "npx eslint --fix .",
      formatFix: "npx prettier --write .",
    });
    assert.deepEqual(d.missing, ["typecheck"]);
    assert.equal(source(d, "formatFix"), "prettier in devDependencies");
  });

  it("tools known only by their config files count too", () => {
    const d = detectProject(
      project({
        "package.json": { scripts: { test: "mocha" } },
        ".eslintrc.json": "{}",
        ".prettierrc": "{}",
      }),
    );
    assert.equal(source(d, "lint"), ".eslintrc.json");
    assert.equal(source(d, "formatFix"), ".prettierrc");
    assert.equal(source(d, "testScoped"), "mocha in scripts.test");
  });

  it("node --test: npm test for the suite; the scoped call reuses the script's flags, with the spec reporter", () => {
    const d = detectProject(
      project({ "package.json": { scripts: { test: "node --import tsx --test test/**/*.test.ts" } } }),
    );
    assert.equal(d.commands.test?.command, "npm test");
    assert.equal(source(d, "test"), "scripts.test in package.json, runs node --test");
    assert.equal(d.commands.testScoped?.command, "node --import tsx --test --test-reporter=spec {{files}}");
  });

  it("follows npm run to the script that runs the tests", () => {
    const d = detectProject(
      project({
        "package.json": {
          scripts: {
            test: "npm run build && npm run test:unit",
            "test:unit": "tsx --test test/",
            build: "tsc",
          },
        },
      }),
    );
    assert.equal(d.commands.test?.command, "npm test");
    assert.equal(d.commands.testScoped?.command, "npx tsx --test --test-reporter=spec {{files}}");
  });

  it("mocha in devDependencies and no test script", () => {
    const d = detectProject(project({ "package.json": { devDependencies: { mocha: "10" } } }));
    assert.equal(d.commands.test?.command, "npx mocha");
    assert.equal(d.commands.testScoped?.command, "npx mocha {{files}}");
    assert.equal(source(d, "test"), "mocha in devDependencies");
  });

  it("npm's placeholder test script is not a test command", () => {
    const d = detectProject(project({ "package.json": { name: "x", scripts: { test: PLACEHOLDER } } }));
    assert.equal(d.primary, "node");
    assert.equal(d.commands.test, undefined);
    assert.deepEqual(d.missing, ["test", "testScoped", "lint", "lintFix", "typecheck", "formatFix"]);
    assert.match(allNotes(d), /scripts\.test is npm's placeholder/);
  });

  it("with the placeholder script, a runner in devDependencies is still used, directly", () => {
    const d = detectProject(
      project({ "package.json": { scripts: { test: PLACEHOLDER }, devDependencies: { jest: "29" } } }),
    );
    assert.equal(d.commands.test?.command, "npx jest");
  });

  it("a test script that watches is not used as the full suite: it would never exit", () => {
    const d = detectProject(
      project({ "package.json": { scripts: { test: "jest --watchAll" }, devDependencies: { jest: "29" } } }),
    );
    assert.equal(d.commands.test?.command, "npx jest");
    assert.match(allNotes(d), /watches/);
  });

  it("a test script gantry cannot scope still gives the suite, and says why there is no scoped run", () => {
    const d = detectProject(project({ "package.json": { scripts: { test: "ava" } } }));
    assert.equal(d.commands.test?.command, "npm test");
    assert.equal(d.commands.testScoped, undefined);
    assert.match(allNotes(d), /not one gantry can scope to files/);
  });

  it("typescript without a tsconfig.json gives no typecheck, and says so", () => {
    const d = detectProject(project({ "package.json": { devDependencies: { typescript: "5" } } }));
    assert.equal(d.commands.typecheck, undefined);
    assert.match(allNotes(d), /no tsconfig\.json/);
  });

  it("a package.json that is not JSON is an input error naming the file and the line", () => {
    const root = project({ "package.json": '{\n  "scripts": {\n}' });
    assert.throws(
      () => detectProject(root),
      (e: unknown) => e instanceof InputError && /package\.json: line \d+, column \d+/.test(e.message),
    );
  });
});

describe("node --test scoped commands", () => {
  const words = (script: string) => scriptSegments(script)[0] ?? [];

  it("keeps env assignments, flag values and reporters; drops paths and --watch", () => {
    assert.equal(
      nodeTestCommand(
        words("NODE_ENV=test node --watch --test --test-reporter dot 'test/**/*.js'"),
        "{{files}}",
      ),
      "NODE_ENV=test node --test --test-reporter dot {{files}}",
    );
    assert.equal(
      nodeTestCommand(words("c8 node -r ./setup.cjs --test"), "{{files}}"),
      "node -r ./setup.cjs --test --test-reporter=spec {{files}}",
    );
  });

  it("splits a script at &&, ||, ; and | but not inside quotes", () => {
    assert.deepEqual(scriptSegments(`a "b && c" && d;e|f`), [["a", '"b && c"'], ["d"], ["e"], ["f"]]);
  });
});

describe("detecting a python project", () => {
  it("pytest + ruff + mypy from pyproject.toml sections", () => {
    const d = detectProject(
      project({
        "pyproject.toml": [
          "[project]",
          'name = "shop"',
          'dependencies = ["requests>=2"]',
          "",
          "[tool.pytest.ini_options]",
          'testpaths = ["tests"]',
          "",
          "[tool.ruff]",
          "line-length = 100",
          "[tool.ruff.lint]",
          'select = ["E", "F"]',
          "",
          "[tool.mypy]",
          "strict = true",
          "",
        ].join("\n"),
      }),
    );
    assert.equal(d.primary, "python");
    assert.deepEqual(commands(d), {
      test: "python -m pytest",
      testScoped: "python -m pytest {{files}}",
      lint: "ruff check . && ruff format --check .",
      lintFix: "ruff check --fix .",
      typecheck: "mypy .",
      formatFix: "ruff format .",
    });
    assert.equal(source(d, "test"), "[tool.pytest.ini_options] in pyproject.toml");
    assert.equal(source(d, "lint"), "[tool.ruff] in pyproject.toml");
    assert.equal(source(d, "typecheck"), "[tool.mypy] in pyproject.toml");
  });

  it("pytest + ruff + mypy named only as dependencies, over several lines", () => {
    const d = detectProject(
      project({
        "pyproject.toml": [
          "[project]",
          'name = "shop"',
          "dependencies = [",
          '  "fastapi",',
          "]",
          "[project.optional-dependencies]",
          "dev = [",
          '  "pytest>=8",  # the runner',
          '  "Ruff[extra]==0.6",',
          "  \"mypy ; python_version >= '3.10'\",",
          "]",
        ].join("\n"),
      }),
    );
    assert.equal(source(d, "test"), "pytest in pyproject.toml");
    assert.equal(source(d, "lint"), "ruff in pyproject.toml");
    assert.equal(source(d, "typecheck"), "mypy in pyproject.toml");
  });

  it("setup.cfg with [tool:pytest]", () => {
    const d = detectProject(
      project({ "setup.cfg": "[metadata]\nname = shop\n\n[tool:pytest]\ntestpaths = tests\n" }),
    );
    assert.equal(d.commands.test?.command, "python -m pytest");
    assert.equal(source(d, "test"), "[tool:pytest] in setup.cfg");
    assert.deepEqual(d.missing, ["lint", "lintFix", "typecheck", "formatFix"]);
  });

  it("setup.cfg requirements and requirements*.txt files", () => {
    const d = detectProject(
      project({
        "setup.cfg":
          "[options]\ninstall_requires =\n    requests\n[options.extras_require]\ntest =\n    pytest-cov\n    mypy\n",
        "requirements-dev.txt": "-r requirements.txt\n# tools\npytest==8.0 # pinned\nblack\n",
      }),
    );
    assert.equal(source(d, "test"), "pytest in requirements-dev.txt");
    assert.equal(source(d, "typecheck"), "mypy in setup.cfg");
    assert.equal(d.commands.formatFix?.command, "black .");
  });

  it("a python project without pytest has no test command, and says so", () => {
    const d = detectProject(project({ "requirements.txt": "flask\n" }));
    assert.equal(d.primary, "python");
    assert.equal(d.commands.test, undefined);
    assert.match(allNotes(d), /no pytest/);
  });
});

describe("python manifest scanning", () => {
  it("reads sections and dependency names, not names that only appear in other strings", () => {
    const scan = scanToml(
      [
        '[project]  # "pytest" in a comment',
        'description = "a pytest plugin"',
        "[tool.poetry.group.dev.dependencies]",
        'pytest = "^8"',
        "[dependency-groups]",
        'lint = ["ruff", {include-group = "x"}]',
        '[tool."mypy"]',
      ].join("\n"),
    );
    assert.ok(scan.sections.has("tool.mypy"));
    assert.ok(scan.dependencies.has("pytest"));
    assert.ok(scan.dependencies.has("ruff"));
    assert.ok(!scan.dependencies.has("a"));
  });

  it("setup.cfg and requirements", () => {
    assert.deepEqual(
      [...scanIni("[options]\ntests_require = pytest, mypy\n").dependencies],
      ["pytest", "mypy"],
    );
    assert.deepEqual([...scanRequirements("-e .\nPyTest_Cov>=4\n--index-url x\n")], ["pytest-cov"]);
  });
});

describe("detecting go and rust", () => {
  it("go.mod: go test -v (gantry needs its per-test lines to count), vet, build, gofmt; no scoped run", () => {
    const d = detectProject(project({ "go.mod": "module example.com/shop\n\ngo 1.22\n" }));
    assert.equal(d.primary, "go");
    assert.deepEqual(commands(d), {
      test: "go test -v ./...",
      lint: "go vet ./... && ! gofmt -l . | grep .",
      typecheck: "go build ./...",
      formatFix: "gofmt -w .",
    });
    assert.deepEqual(d.missing, ["testScoped", "lintFix"]);
    assert.match(allNotes(d), /no scoped/);
  });

  it("go with a golangci-lint config lints with it", () => {
    const d = detectProject(project({ "go.mod": "module m\n", ".golangci.yml": "linters: {}\n" }));
    assert.equal(d.commands.lint?.command, "golangci-lint run && ! gofmt -l . | grep .");
    assert.equal(d.commands.lintFix?.command, "golangci-lint run --fix");
  });

  it("Cargo.toml: cargo test, clippy with warnings as errors, check, fmt", () => {
    const d = detectProject(project({ "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\n' }));
    assert.equal(d.primary, "rust");
    assert.deepEqual(commands(d), {
      test: "cargo test",
      lint: "cargo clippy -- -D warnings && cargo fmt --check",
      typecheck: "cargo check",
      formatFix: "cargo fmt",
    });
  });

  it("a cargo workspace root runs every member", () => {
    const d = detectProject(project({ "Cargo.toml": '[workspace]\nmembers = ["a", "b"]\n' }));
    assert.equal(d.commands.test?.command, "cargo test --workspace");
    assert.equal(d.commands.formatFix?.command, "cargo fmt --all");
  });
});

describe("mixed repositories and empty ones", () => {
  it("node and python with tests: node's tests win; python fills the lint node lacks; the rest is said", () => {
    const d = detectProject(
      project({
        "package.json": { devDependencies: { vitest: "3" } },
        "pyproject.toml": "[tool.pytest.ini_options]\n[tool.ruff]\n",
      }),
    );
    assert.equal(d.primary, "node");
    assert.deepEqual(
      d.stacks.map((s) => s.stack),
      ["node", "python"],
    );
    assert.equal(d.commands.test?.command, "npx vitest run");
    assert.equal(d.commands.testScoped?.command, "npx vitest run {{files}}");
    assert.equal(d.commands.lint?.command, "ruff check . && ruff format --check .");
    assert.equal(d.commands.lint?.stack, "python");
    assert.equal(d.commands.lintFix?.command, "ruff check --fix .");
    assert.match(d.notes.join("\n"), /python also found .*python -m pytest.* not used/);
  });

  it("a package.json without tests does not win over a stack with tests", () => {
    const d = detectProject(
      project({
        "package.json": { scripts: { test: PLACEHOLDER }, devDependencies: { prettier: "3" } },
        "go.mod": "module m\n",
      }),
    );
    assert.equal(d.primary, "go");
    assert.equal(d.commands.test?.command, "go test -v ./...");
    // go has a formatter of its own, which comes first; prettier would fill only a gap.
    assert.equal(d.commands.formatFix?.command, "gofmt -w .");
    assert.equal(
      d.commands.testScoped,
      undefined,
      "scoped tests never come from another stack than the suite",
    );
  });

  it("nothing to detect: no stacks, every command missing", () => {
    const d = detectProject(project({ "README.md": "# hello\n" }));
    assert.deepEqual(d, {
      stacks: [],
      primary: undefined,
      commands: {},
      missing: ["test", "testScoped", "lint", "lintFix", "typecheck", "formatFix"],
      notes: [],
    });
  });
});
