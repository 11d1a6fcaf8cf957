import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, it } from "node:test";
import { gantry, git, passingTest, readJsonl } from "./harness.js";

/**
 * A stand-in for Claude Code on PATH: answers `--version`; otherwise reads the prompt on stdin, logs the
 * call to $FAKE_CLAUDE_LOG, writes src/calc.js with a test for it, and prints Claude Code's JSON result.
 */
const FAKE_CLAUDE = `#!/usr/bin/env node
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
const args = process.argv.slice(2);
if (args[0] === "--version") {
  process.stdout.write("2.0.0 (Claude Code, fake)\\n");
  process.exit(0);
}
if (args[0] === "auth") {
  process.stdout.write(JSON.stringify({ loggedIn: true, authMethod: "fake" }) + "\\n");
  process.exit(0);
}
const prompt = readFileSync(0, "utf8");
appendFileSync(process.env.FAKE_CLAUDE_LOG, JSON.stringify({ argv: args, story: process.env.GANTRY_STORY_ID, promptChars: prompt.length }) + "\\n");
mkdirSync("src", { recursive: true });
mkdirSync("test", { recursive: true });
writeFileSync("src/calc.js", "export const calc = () => 2;\\n");
writeFileSync("test/calc.test.js", ${JSON.stringify(passingTest("calc", 'const { calc } = await import("../src/calc.js");\n  assert.equal(calc(), 2);'))});
process.stdout.write(JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "done", total_cost_usd: 0.02, usage: { input_tokens: 100, output_tokens: 20 } }) + "\\n");
`;

describe("the first hour, as a newcomer walks it (built CLI, fresh project, fake claude on PATH)", () => {
  it("init writes the built-in adapter; dependsOn warns; a missing agent is exit 2 before any story; run -f works", async () => {
    const root = mkdtempSync(join(tmpdir(), "gantry-first-hour-"));
    const fake = mkdtempSync(join(tmpdir(), "gantry-fake-claude-"));
    mkdirSync(join(fake, "bin"));
    writeFileSync(join(fake, "bin", "claude"), FAKE_CLAUDE);
    chmodSync(join(fake, "bin", "claude"), 0o755);
    const log = join(fake, "calls.jsonl");
    const withClaude = {
      PATH: `${join(fake, "bin")}${delimiter}${process.env.PATH ?? ""}`,
      FAKE_CLAUDE_LOG: log,
    };
    const calls = () => (existsSync(log) ? readJsonl(log) : []);

    writeFileSync(
      join(root, "package.json"),
      JSON.stringify({ name: "shop", type: "module", private: true, scripts: { test: "node --test test/" } }),
    );
    mkdirSync(join(root, "test"));
    writeFileSync(join(root, "test", "base.test.js"), passingTest("base"));
    git(root, "init", "-q", "-b", "main");
    git(root, "config", "user.email", "new@example.com");
    git(root, "config", "user.name", "newcomer");

    const init = await gantry(root, ["init"], { env: withClaude });
    assert.equal(init.code, 0, init.stderr);
    const config = JSON.parse(readFileSync(join(root, ".gantry/config.json"), "utf8"));
    assert.deepEqual(config.agent, { default: "claude" }, "the built-in adapter, no command line");
    assert.match(init.stdout, /^agent: claude, the built-in adapter \(.*\/bin\/claude on PATH\)/m);
    assert.match(
      init.stdout,
      /^next: write .*prd\.json \(docs\/prd\.md\), check with gantry validate, then gantry run -f /m,
    );
    config.agent.timeoutSeconds = 60;
    writeFileSync(join(root, ".gantry/config.json"), JSON.stringify(config, null, 2));

    const prdPath = join(root, ".gantry/features/shop/prd.json");
    mkdirSync(join(root, ".gantry/features/shop"), { recursive: true });
    const stories = [
      {
        id: "US-1",
        title: "calc returns 2",
        acceptanceCriteria: ["calc() is 2"],
        routing: { complexity: "simple" },
      },
      { id: "US-2", title: "later", dependsOn: ["US-1"] },
    ];
    writeFileSync(prdPath, JSON.stringify({ userStories: stories }, null, 2));
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "gantry init and a first feature");

    const validate = await gantry(root, ["validate", "-f", "shop"], { env: withClaude });
    assert.equal(validate.code, 0, validate.stderr);
    assert.match(
      validate.stderr,
      /^gantry: warning: \.gantry\/features\/shop\/prd\.json: userStories\[1\]\.dependsOn: unknown key "dependsOn"; did you mean "dependencies"\?/m,
    );
    assert.match(validate.stdout, /agent claude: 2\.0\.0 \(Claude Code, fake\)/);
    const strict = await gantry(root, ["validate", "--strict"], { env: withClaude });
    assert.equal(strict.code, 2, strict.stderr);
    assert.match(
      strict.stderr,
      /userStories\[1\]\.dependsOn: unknown key "dependsOn"; did you mean "dependencies"\? \(--strict\)/,
    );

    const plan = await gantry(root, ["run", "-f", "shop", "--dry-run"], { env: withClaude });
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(
      plan.stderr,
      /userStories\[1\]\.dependsOn: unknown key "dependsOn"; did you mean "dependencies"\?/,
    );
    assert.match(plan.stdout, /^US-1 {2}simple\/fast/m);

    // The user's PATH without the CLI: nothing is spent, nothing is written.
    const missing = await gantry(root, ["run", "-f", "shop", "--story", "US-1"], {
      env: { FAKE_CLAUDE_LOG: log },
    });
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(
      missing.stderr,
      /^gantry: \.gantry\/config\.json: agent\.default: "claude" cannot start: claude --version failed: .*claude: not found/m,
    );
    assert.doesNotMatch(missing.stderr, /\n\s+at /, "no stack trace");
    assert.equal(calls().length, 0, "no agent call");
    assert.equal(existsSync(join(root, ".gantry/runs")), false, "no run directory");
    assert.equal(git(root, "status", "--porcelain"), "");

    const run = await gantry(root, ["run", "-f", "shop", "--story", "US-1"], { env: withClaude });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(calls().length, 1);
    const after = JSON.parse(readFileSync(prdPath, "utf8"));
    assert.equal(after.userStories[0].status, "passed");
    assert.deepEqual(after.userStories[1].dependsOn, ["US-1"], "the unknown key round-trips");
    assert.match(git(root, "log", "-1", "--format=%s"), /US-1/);
  });
});
