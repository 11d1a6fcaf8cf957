import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { AgentRegistry } from "../../src/agents/registry.js";
import { initCommand } from "../../src/cli/init.js";
import { KNOWN_AGENT_CLIS } from "../../src/config/detect/agent.js";
import { InputError } from "../../src/config/input-error.js";
import { parseConfig } from "../../src/config/loader.js";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function tempDir(prefix = "gantry-init-"): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  roots.push(root);
  return root;
}

function project(files: Record<string, string>): string {
  const root = tempDir();
  for (const [path, content] of Object.entries(files)) writeFileSync(join(root, path), content);
  return root;
}

/** A PATH with nothing on it, so no agent CLI of the machine running the tests is found. */
const EMPTY_PATH = { PATH: "" };

async function init(root: string, options: { force?: boolean; json?: boolean } = {}, env = EMPTY_PATH) {
  const out: string[] = [];
  const code = await initCommand(
    { dir: root, ...options },
    { stdout: { write: (s: string) => out.push(s) }, env },
  );
  return { code, stdout: out.join("") };
}

const readConfig = (root: string) => JSON.parse(readFileSync(join(root, ".gantry/config.json"), "utf8"));
const VITEST_PROJECT = {
  "package.json": JSON.stringify({ devDependencies: { vitest: "3", "@biomejs/biome": "2" } }),
};

describe("gantry init", () => {
  it("writes the config, .gitignore and the features directory, and says what it found and from where", async () => {
    const root = project(VITEST_PROJECT);
    const { code, stdout } = await init(root);
    assert.equal(code, 0);
    assert.match(
      stdout,
      /^sandbox: not available \(bwrap not found\): agent\.sandbox "auto" runs sessions unsandboxed$/m,
    );

    const config = readConfig(root);
    assert.deepEqual(config.quality.commands, {
      test: "npx vitest run",
      testScoped: "npx vitest run {{files}}",
      lint: "npx biome check .",
      lintFix: "npx biome check --write .",
      formatFix: "npx biome format --write .",
    });
    assert.deepEqual(config.agent, { default: "command" });
    const parsed = parseConfig("config.json", config);
    assert.equal(parsed.quality.commands.test, "npx vitest run");
    // $schema is relative to .gantry/config.json and reaches gantry's committed schema.
    assert.ok(!config.$schema.startsWith("/"));
    assert.ok(existsSync(resolve(root, ".gantry", config.$schema)), config.$schema);
    assert.ok(config.$schema.endsWith("schemas/config.schema.json"));
    assert.equal(readFileSync(join(root, ".gantry/config.json"), "utf8").endsWith("}\n"), true);

    assert.equal(readFileSync(join(root, ".gitignore"), "utf8"), ".gantry/runs/\n.gantry/lock\n");
    assert.ok(statSync(join(root, ".gantry/features")).isDirectory());

    assert.match(stdout, /^wrote .*\.gantry\/config\.json$/m);
    assert.match(stdout, /^ {2}test: npx vitest run \(vitest in devDependencies\)$/m);
    assert.match(stdout, /^ {2}lint: npx biome check \. \(@biomejs\/biome in devDependencies\)$/m);
    assert.match(stdout, /^ {2}no typecheck command found$/m);
    assert.match(
      stdout,
      /no agent CLI found on PATH; install one of claude, codex, .* or set agent\.command\.run/,
    );
    assert.doesNotMatch(stdout, /--full-auto|acceptEdits/, "no flag docs/agents.md advises against");
    assert.match(stdout, /created \.gitignore: \.gantry\/runs\/, \.gantry\/lock/);
    assert.match(stdout, /^created \.gantry\/features\/$/m);
  });

  it("refuses to overwrite an existing config without --force: exit 2, naming the file, nothing touched", async () => {
    const root = project(VITEST_PROJECT);
    mkdirSync(join(root, ".gantry"));
    writeFileSync(join(root, ".gantry/config.json"), '{ "mine": true }\n');
    await assert.rejects(
      init(root),
      (e: unknown) =>
        e instanceof InputError &&
        e.exitCode === 2 &&
        /\.gantry\/config\.json: already exists; pass --force to overwrite it$/.test(e.message),
    );
    assert.equal(readFileSync(join(root, ".gantry/config.json"), "utf8"), '{ "mine": true }\n');
    assert.ok(!existsSync(join(root, ".gitignore")));
    assert.ok(!existsSync(join(root, ".gantry/features")));
  });

  it("--force overwrites; a second run adds nothing to .gitignore and keeps its content and final newline", async () => {
    const root = project({ ...VITEST_PROJECT, ".gitignore": "node_modules/\n/.gantry/runs" });
    await init(root);
    assert.equal(
      readFileSync(join(root, ".gitignore"), "utf8"),
      "node_modules/\n/.gantry/runs\n.gantry/lock",
    );

    writeFileSync(join(root, ".gantry/config.json"), "{}\n");
    const { code, stdout } = await init(root, { force: true });
    assert.equal(code, 0);
    assert.match(stdout, /^overwrote /m);
    assert.equal(readConfig(root).quality.commands.test, "npx vitest run");
    assert.equal(
      readFileSync(join(root, ".gitignore"), "utf8"),
      "node_modules/\n/.gantry/runs\n.gantry/lock",
    );
    assert.match(stdout, /\.gitignore already ignores/);
  });

  it("keeps CRLF line endings in .gitignore and warns when all of .gantry/ is ignored", async () => {
    const root = project({ ".gitignore": "dist\r\n.gantry/\r\n" });
    const { stdout } = await init(root);
    assert.equal(
      readFileSync(join(root, ".gitignore"), "utf8"),
      "dist\r\n.gantry/\r\n.gantry/runs/\r\n.gantry/lock\r\n",
    );
    assert.match(stdout, /warning: \.gitignore ignores all of \.gantry\//);
  });

  it("nothing detected: exit 0, a config without commands that still parses, and says so", async () => {
    const root = tempDir();
    const { code, stdout } = await init(root);
    assert.equal(code, 0);
    const config = readConfig(root);
    assert.deepEqual(config.quality, { commands: {} });
    parseConfig("config.json", config);
    assert.match(stdout, /nothing detected/);
    assert.match(stdout, /no test command found/);
  });

  it("--json prints the detection result as JSON only", async () => {
    const root = project({ "go.mod": "module m\n" });
    const { code, stdout } = await init(root, { json: true });
    assert.equal(code, 0);
    const result = JSON.parse(stdout);
    assert.equal(result.primary, "go");
    assert.deepEqual(result.commands.test, { command: "go test -v ./...", source: "go.mod", stack: "go" });
    assert.deepEqual(result.missing, ["testScoped", "lintFix"]);
    assert.deepEqual(result.written.quality.commands, readConfig(root).quality.commands);
    assert.deepEqual(result.gitignore.added, [".gantry/runs/", ".gantry/lock"]);
    assert.equal(result.agent, null);
  });

  it("an agent CLI on PATH becomes the built-in adapter, the first known one when there are several", async () => {
    const bin = tempDir("gantry-bin-");
    for (const name of ["opencode", "claude", "gemini"]) {
      writeFileSync(join(bin, name), "#!/bin/sh\nexit 0\n");
      chmodSync(join(bin, name), 0o755);
    }
    const root = tempDir();
    const { stdout } = await init(root, {}, { PATH: bin });
    assert.deepEqual(readConfig(root).agent, { default: "claude" });
    assert.match(stdout, /^agent: claude, the built-in adapter \(.*claude on PATH\)/m);
    for (const [name, expected] of [
      ["codex", "codex"],
      ["aider", "aider"],
    ] as const) {
      const only = tempDir("gantry-bin-");
      writeFileSync(join(only, name), "#!/bin/sh\nexit 0\n");
      chmodSync(join(only, name), 0o755);
      const other = tempDir();
      await init(other, {}, { PATH: `${join(only, "missing")}:${only}` });
      assert.deepEqual(readConfig(other).agent, { default: expected });
    }
  });

  it("every agent init may choose is a built-in adapter", () => {
    const builtins = new AgentRegistry().names();
    for (const name of KNOWN_AGENT_CLIS) assert.ok(builtins.includes(name), name);
  });

  it("proposes the between-stories checks the project declares: build and smoke scripts, go build", async () => {
    const node = project({
      "package.json": JSON.stringify({
        scripts: { test: "node --test", build: "tsc", smoke: "node dist/cli.js --version" },
      }),
    });
    const { stdout } = await init(node);
    const commands = readConfig(node).quality.commands;
    assert.equal(commands.build, "npm run build");
    assert.equal(commands.smoke, "npm run smoke");
    assert.equal(commands.demo, undefined);
    assert.match(
      stdout,
      /^ {2}build: npm run build \(package\.json scripts\.build; story-check between stories\)$/m,
    );
    const go = project({ "go.mod": "module example.com/x\n\ngo 1.22\n" });
    await init(go);
    assert.equal(readConfig(go).quality.commands.build, "go build ./...");
    const none = project({ "package.json": JSON.stringify({ scripts: { test: "node --test" } }) });
    await init(none);
    assert.equal(readConfig(none).quality.commands.build, undefined);
  });

  it("a --dir that does not exist is bad usage", async () => {
    await assert.rejects(init(join(tempDir(), "missing")), (e: unknown) => e instanceof InputError);
  });
});
