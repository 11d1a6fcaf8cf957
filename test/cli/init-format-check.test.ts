import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { initCommand } from "../../src/cli/init.js";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function tempDir(): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-init-format-"));
  roots.push(root);
  return root;
}

function project(files: Record<string, string>): string {
  const root = tempDir();
  for (const [path, content] of Object.entries(files)) writeFileSync(join(root, path), content);
  return root;
}

/**
 * Stand-ins for the formatters, as they behave: `ruff format --check` exits 1 naming what it would
 * reformat; `gofmt -l` lists the files it would change and exits 0 all the same. A file is unformatted
 * when it holds `x=1` (no spaces). `ruff check`, `go vet` pass.
 */
function fakeTools(): string {
  const bin = join(tempDir(), "bin");
  mkdirSync(bin);
  const tool = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  const unformatted = "grep -l 'x=1' *.py *.go 2>/dev/null";
  tool(
    "ruff",
    `if [ "$1 $2" = "format --check" ]; then files=$(${unformatted}); [ -z "$files" ] && exit 0; for f in $files; do echo "Would reformat: $f"; done; exit 1; fi\nexit 0`,
  );
  tool("gofmt", `[ "$1" = "-l" ] && ${unformatted}\nexit 0`);
  tool("go", "exit 0");
  return bin;
}

async function initLint(root: string): Promise<string> {
  const code = await initCommand({ dir: root }, { stdout: { write: () => true }, env: { PATH: "" } });
  assert.equal(code, 0);
  const config = JSON.parse(readFileSync(join(root, ".gantry/config.json"), "utf8"));
  return config.quality.commands.lint as string;
}

/** Runs the lint command the way gantry runs quality commands: through the shell, in the project. */
function lint(root: string, command: string, bin: string) {
  const r = spawnSync("sh", ["-c", command], {
    cwd: root,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    encoding: "utf8",
    timeout: 20_000,
  });
  return { code: r.status, output: r.stdout + r.stderr };
}

describe("gantry init writes a format check next to the formatter", () => {
  const bin = fakeTools();

  it("ruff (from pyproject.toml): lint checks `ruff format --check`; a formatting slip fails it", async () => {
    const root = project({
      "pyproject.toml":
        '[project]\nname = "p"\n\n[tool.ruff]\nline-length = 100\n\n[tool.pytest.ini_options]\n',
      "a.py": "x = 1\n",
    });
    const command = await initLint(root);
    assert.equal(command, "ruff check . && ruff format --check .");
    assert.deepEqual(lint(root, command, bin), { code: 0, output: "" });
    writeFileSync(join(root, "a.py"), "x=1\n");
    const slipped = lint(root, command, bin);
    assert.equal(slipped.code, 1);
    assert.match(slipped.output, /Would reformat: a\.py/);
  });

  it("a Go module: lint fails when gofmt -l lists a file, although gofmt itself exits 0", async () => {
    const root = project({
      "go.mod": "module example.com/m\n\ngo 1.19\n",
      "m.go": "package m\n\nvar x = 1\n",
    });
    const command = await initLint(root);
    assert.match(command, /^go vet \.\/\.\.\. && /);
    assert.deepEqual(lint(root, command, bin), { code: 0, output: "" });
    writeFileSync(join(root, "m.go"), "package m\n\nvar x=1\n");
    assert.equal(spawnSync(join(bin, "gofmt"), ["-l", "."], { cwd: root }).status, 0, "gofmt -l exits 0");
    const slipped = lint(root, command, bin);
    assert.equal(slipped.code, 1);
    assert.equal(slipped.output.trim(), "m.go");
  });

  it("with the real gofmt, when this machine has it", async (t) => {
    if (spawnSync("sh", ["-c", "command -v gofmt"]).status !== 0) {
      t.skip("gofmt is not installed (Debian: golang-go)");
      return;
    }
    const root = project({
      "go.mod": "module example.com/m\n\ngo 1.19\n",
      "m.go": "package m\n\nvar x = 1\n",
    });
    const command = (await initLint(root)).replace(/^go vet \.\/\.\.\. && /, "");
    assert.equal(lint(root, command, "").code, 0);
    writeFileSync(join(root, "m.go"), "package m\n\nvar   x=1\n");
    const slipped = lint(root, command, "");
    assert.deepEqual([slipped.code, slipped.output.trim()], [1, "m.go"]);
  });
});
