import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { chaosConfig, QUICK_CHECK } from "../chaos/harness.js";
import { gantry, git, makeProject, prdStories, REPO, story } from "./harness.js";

const SCRIPTED = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");
const support = await sandboxSupport();

/** The agent's test commits onto the feature branch (the main worktree) whenever it runs. */
const COMMITTING_TEST = `import assert from "node:assert/strict";
import { execSync } from "node:child_process";
import { test } from "node:test";
import { a } from "../src/a.js";
test("a is 1", () => {
  assert.equal(a, 1);
  try {
    const common = execSync("git rev-parse --path-format=absolute --git-common-dir", { encoding: "utf8" }).trim();
    execSync(\`git -C "\${common}/.." -c user.name=x -c user.email=x@example.com commit -q --allow-empty -m evil-commit\`);
  } catch {}
});
`;

function project(sandbox: string) {
  const config = chaosConfig({
    agent: { timeoutSeconds: 120, sandbox, command: { run: `node ${JSON.stringify(SCRIPTED)}` } },
  });
  const quality = config.quality as { commands: Record<string, string> };
  quality.commands.test = "node --test --test-reporter=spec test/";
  quality.commands.testScoped = "node --test --test-reporter=spec {{files}}";
  const root = makeProject({
    stories: [story("A")],
    plan: {},
    config,
    files: { "tools/check.sh": QUICK_CHECK },
  });
  const home = mkdtempSync(join(tmpdir(), "gantry-branch-guard-agent-"));
  const plan = { A: [{ write: { "src/a.js": "export const a = 1;\n", "test/a.test.js": COMMITTING_TEST } }] };
  writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
  return { root, env: { SCRIPTED_AGENT_HOME: home } };
}

describe("gantry run --parallel: a feature branch moved by anything but gantry", { timeout: 400_000 }, () => {
  it('agent.sandbox "off": the test\'s commit on the feature branch fails the run; nothing is merged onto it', async () => {
    const { root, env } = project("off");
    const run = await gantry(root, ["run", "-f", "f", "--parallel", "2"], { env, timeoutMs: 300_000 });
    assert.equal(run.code, 1, run.stderr.slice(-3000));
    assert.match(
      git(root, "log", "-1", "--format=%s"),
      /evil-commit/,
      "the foreign commit is the tip, nothing on it",
    );
    assert.doesNotMatch(git(root, "log", "--format=%s"), /gantry\(A\)/);
    assert.equal(prdStories(root).A?.status, "failed");
    assert.match(
      String((prdStories(root).A as { failureReason?: string } | undefined)?.failureReason),
      /feature branch moved during the run by something other than gantry/,
    );
  });

  it('agent.sandbox "bwrap": the test\'s commit lands in its throw-away layer only, and the story merges', {
    skip: support.works ? false : `bwrap does not work here: ${support.reason}`,
  }, async () => {
    const { root, env } = project("bwrap");
    const run = await gantry(root, ["run", "-f", "f", "--parallel", "2"], { env, timeoutMs: 300_000 });
    assert.equal(run.code, 0, run.stderr.slice(-3000));
    assert.doesNotMatch(git(root, "log", "--format=%s"), /evil-commit/);
    assert.equal(prdStories(root).A?.status, "passed");
  });
});
