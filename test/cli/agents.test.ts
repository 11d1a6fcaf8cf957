import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { agentsCommand, findOnPath } from "../../src/cli/agents.js";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { installFakes } from "../agents/harness.js";

const fakes = installFakes();

async function capture(
  run: (write: (text: string) => void) => Promise<number>,
): Promise<{ code: number; out: string }> {
  let out = "";
  const code = await run((text) => {
    out += text;
  });
  return { code, out };
}

function project(config: Record<string, unknown>): string {
  const dir = mkdtempSync(join(fakes.root, "project-"));
  mkdirSync(join(dir, ".gantry"));
  writeFileSync(join(dir, ".gantry", "config.json"), JSON.stringify(config));
  return dir;
}

describe("gantry agents", () => {
  it("lists every adapter with its CLI on PATH, its version and its model per tier", async () => {
    const dir = project({ agent: { default: "codex", models: { codex: { fast: "my-mini" } } } });
    const { code, out } = await capture((write) => agentsCommand({ json: true, dir, write }));
    assert.equal(code, 0);
    const report = JSON.parse(out);
    assert.equal(report.default, "codex");
    assert.deepEqual(
      report.agents.map((a: { name: string }) => a.name),
      ["command", "claude", "codex", "gemini", "aider", "opencode"],
    );
    const { checks, ...codex } = report.agents.find((a: { name: string }) => a.name === "codex");
    // The default agent's offline checks: the fake answers `codex login status` with exit 0.
    assert.equal(checks[0], "logged in");
    assert.match(checks[1], /Codex's own sandbox (off|on)/);
    assert.deepEqual(codex, {
      name: "codex",
      default: true,
      bin: "codex",
      path: join(fakes.bin, "codex"),
      version: "codex 9.9.9-fake",
      models: { fast: "my-mini", balanced: "gpt-6.2-sol", powerful: "gpt-6.2-astra" },
      ready: true,
    });
    const command = report.agents.find((a: { name: string }) => a.name === "command");
    assert.equal(command.ready, false);
    assert.equal(command.command, null);
  });

  it("exits 1 when the default agent cannot run here, and prints a table without --json", async () => {
    const dir = project({ agent: { default: "command" } });
    const { code, out } = await capture((write) => agentsCommand({ dir, write }));
    assert.equal(code, 1);
    assert.match(out, /^\* command +agent\.command\.run is not set$/m);
    assert.match(
      out,
      new RegExp(`^  claude +${join(fakes.bin, "claude")} +\\(claude 9\\.9\\.9-fake\\)$`, "m"),
    );
    assert.match(out, /models: fast=haiku balanced=sonnet powerful=opus/);
    // This machine's answer: the test suite's setup installs bubblewrap (scripts/setup-system.mjs).
    const bwrap = await sandboxSupport();
    assert.match(
      out,
      bwrap.works
        ? /^sandbox: bubblewrap works here$/m
        : /^sandbox: not available \(.+\): agent\.sandbox "auto" runs sessions unsandboxed$/m,
    );
  });

  it("finds executables on PATH only", () => {
    assert.equal(findOnPath("claude"), join(fakes.bin, "claude"));
    assert.equal(findOnPath("no-such-cli-anywhere"), null);
    assert.equal(findOnPath("claude", "/nonexistent"), null);
  });
});
