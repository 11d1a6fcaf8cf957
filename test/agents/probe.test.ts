import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { probeAgent } from "../../src/agents/probe.js";
import { AgentRegistry } from "../../src/agents/registry.js";
import { type ConfigInput, ConfigSchema } from "../../src/config/schema.js";

const dir = mkdtempSync(join(tmpdir(), "gantry-probe-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const bin = join(dir, "bin");
mkdirSync(bin);
const env = { ...process.env, PATH: `${bin}:/usr/bin:/bin` };

function fake(name: string, script: string) {
  writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, name), 0o755);
}

function probe(agent: string, input: ConfigInput["agent"] = {}, timeoutMs?: number) {
  const config = ConfigSchema.parse({ agent: { default: agent, ...input } });
  return probeAgent(new AgentRegistry().create(agent, config), config, dir, env, timeoutMs);
}

describe("can the agent start", () => {
  it("a named CLI answers --version: ready, with its first line", async () => {
    fake("claude", 'echo "$@" >> claude-args.txt; echo "2.1.0 (Claude Code)"');
    assert.deepEqual(await probe("claude"), { kind: "ready", detail: "2.1.0 (Claude Code)" });
    assert.equal(readFileSync(join(dir, "claude-args.txt"), "utf8"), "--version\n", "nothing but --version");
  });

  it("a named CLI not on PATH, or one that fails: broken, in the shell's or the CLI's words", async () => {
    const missing = await probe("gemini");
    assert.equal(missing.kind, "broken");
    assert.equal(missing.kind === "broken" && missing.where, "agent.default");
    assert.match(
      missing.kind === "broken" ? missing.problem : "",
      /^"gemini" cannot start: gemini --version failed: .*sh: 1: gemini: not found; install it or choose another agent\.default$/,
    );
    fake(
      "codex",
      'echo "node:internal/modules: Error: Cannot find module \'x\'" >&2; echo "Node.js v20" >&2; exit 1',
    );
    const crashed = await probe("codex");
    assert.match(
      crashed.kind === "broken" ? crashed.problem : "",
      /codex --version failed: node:internal\/modules: Error: Cannot find module 'x'$/,
    );
  });

  it("a --version that hangs is killed with its group at the timeout and only unconfirmed", async () => {
    const pidFile = join(dir, "child.pid");
    fake("aider", `sleep 30 & echo $! > ${pidFile}; wait`);
    const started = Date.now();
    const result = await probe("aider", {}, 500);
    assert.equal(result.kind, "unconfirmed");
    assert.ok(Date.now() - started < 5000);
    const child = Number(readFileSync(pidFile, "utf8"));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(
      existsSync(`/proc/${child}`) && !readFileSync(`/proc/${child}/stat`, "utf8").includes(") Z "),
      false,
    );
  });

  it("the command agent needs agent.command.run, and its program found", async () => {
    const unset = await probe("command");
    assert.equal(unset.kind === "broken" && unset.where, "agent.command.run");
    assert.match(unset.kind === "broken" ? unset.problem : "", /^not set; /);
    const absent = await probe("command", { command: { run: "my-agent --go" } });
    assert.match(
      absent.kind === "broken" ? absent.problem : "",
      /^cannot start "my-agent --go": .*my-agent: not found$/,
    );
    assert.deepEqual(await probe("command", { command: { run: "node agent.mjs" } }), {
      kind: "ready",
      detail: "runs: node agent.mjs",
    });
  });

  it("a warning on stderr before the version is not taken for the version", async () => {
    fake(
      "codex",
      'echo "WARNING: proceeding, even though we could not create PATH aliases" >&2; echo "codex-cli 0.171.0"',
    );
    assert.deepEqual(await probe("codex"), { kind: "ready", detail: "codex-cli 0.171.0" });
  });

  it("with the readiness checks: root outside gantry's sandbox and no login stop Claude Code before any session", async () => {
    fake(
      "claude",
      'if [ "$1" = auth ]; then echo \'{"loggedIn": false, "authMethod": "none"}\'; exit 1; fi; echo "2.1.332 (Claude Code)"',
    );
    const config = ConfigSchema.parse({ agent: { default: "claude" } });
    const adapter = new AgentRegistry().create("claude", config);
    const bare: NodeJS.ProcessEnv = { ...env };
    for (const key of ["ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"])
      delete bare[key];
    const found = await probeAgent(adapter, config, dir, bare, undefined, undefined, { sandboxed: false });
    assert.equal(found.kind, "broken");
    const problem = found.kind === "broken" ? found.problem : "";
    assert.match(problem, /`claude auth status` says not logged in: run `claude auth login`/);
    if (process.getuid?.() === 0) assert.match(problem, /runs as root without gantry's sandbox/);
    fake(
      "claude",
      'if [ "$1" = auth ]; then echo \'{"loggedIn": true, "apiKeySource": "ANTHROPIC_API_KEY"}\'; exit 0; fi; echo "2.1.332"',
    );
    const sandboxed = await probeAgent(adapter, config, dir, bare, undefined, undefined, { sandboxed: true });
    assert.equal(sandboxed.kind, "ready");
    const checks = sandboxed.kind === "ready" ? (sandboxed.checks ?? []).map((c) => c.text) : [];
    assert.ok(checks.includes("logged in (ANTHROPIC_API_KEY)"), checks.join("; "));
  });

  it("Gemini with GOOGLE_GEMINI_BASE_URL and no auth type in its settings: broken, naming the setting", async () => {
    fake("gemini", 'echo "0.61.0"');
    const home = join(dir, "gemini-home");
    mkdirSync(home, { recursive: true });
    const config = ConfigSchema.parse({ agent: { default: "gemini" } });
    const adapter = new AgentRegistry().create("gemini", config);
    const withUrl = { ...env, HOME: home, GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:1", GEMINI_API_KEY: "k" };
    const found = await probeAgent(adapter, config, dir, withUrl, undefined, undefined, { sandboxed: true });
    assert.match(found.kind === "broken" ? found.problem : "", /security\.auth\.selectedType/);
    mkdirSync(join(home, ".gemini"), { recursive: true });
    writeFileSync(
      join(home, ".gemini", "settings.json"),
      '{"security":{"auth":{"selectedType":"gemini-api-key"}}}',
    );
    const fixed = await probeAgent(adapter, config, dir, withUrl, undefined, undefined, { sandboxed: true });
    assert.equal(fixed.kind, "ready");
  });
});
