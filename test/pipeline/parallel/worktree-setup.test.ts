import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { chaosConfig, chaosProject, moduleWithTest } from "../../chaos/project.js";
import { type CliResult, gantry, git, prdStories } from "../../e2e/harness.js";

/**
 * `execution.worktreeSetup` with the built CLI at --parallel 3: in A's worktree it generates an ignored
 * source file (never the story's), in B's it fails, in C's it leaves a file git sees.
 */
const SETUP = [
  'case "$PWD" in',
  "  */B) echo 'setup broke' >&2; exit 3 ;;",
  "  */C) echo 'export const leak = 1;' > src/leak.js ;;",
  "esac",
  "mkdir -p gen && echo 'export const g = 1;' > gen/g.js",
].join("\n");

describe("execution.worktreeSetup", () => {
  let root: string;
  let run: CliResult;

  before(async () => {
    const config = chaosConfig({ execution: { worktreeSetup: SETUP } });
    root = chaosProject({
      plan: {
        A: [{ write: moduleWithTest("ma", 1) }],
        B: [{ write: moduleWithTest("mb", 1) }],
        C: [{ write: moduleWithTest("mc", 1) }],
      },
      config,
      files: {
        ".gitignore": ".gantry/runs/\n.gantry/lock\n.agent-log.jsonl\n.agent-plan/\ngen/\n",
      },
    });
    run = await gantry(root, ["run", "--feature", "f", "--parallel", "3"], {
      env: { SCRIPTED_AGENT_HOME: root },
      timeoutMs: 200_000,
    });
  });

  it("runs in each new worktree before the story: what it makes (ignored) is not the story's work", () => {
    assert.equal(run.code, 1, run.stderr.slice(-2000));
    assert.equal(prdStories(root).A?.status, "passed");
    assert.match(git(root, "log", "--format=%s"), /gantry\(A\)/);
    assert.doesNotMatch(git(root, "ls-tree", "-r", "--name-only", "HEAD"), /gen\/g\.js|leak/);
  });

  it("fails the story it could not set up, with the command's output, and starts no session for it", () => {
    const stories = prdStories(root) as Record<string, { status: string; failureReason?: string }>;
    assert.equal(stories.B?.status, "failed");
    assert.match(stories.B?.failureReason ?? "", /execution\.worktreeSetup .* exited with 3: setup broke/);
    assert.equal(stories.C?.status, "failed");
    assert.match(
      stories.C?.failureReason ?? "",
      /left files git sees \(src\/leak\.js\): what it makes must be ignored/,
    );
    const log = git(root, "log", "--format=%s");
    assert.doesNotMatch(log, /gantry\((B|C)\)/);
    assert.doesNotMatch(run.stderr, /internal error/);
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
  });

  it("says while it sets a worktree up, and how it went, so a long setup is not silence", () => {
    for (const id of ["A", "B", "C"]) {
      assert.match(
        run.stdout,
        new RegExp(`^\\[[\\d:]+\\] ${id} setting up its worktree: case "\\$PWD" in`, "m"),
      );
    }
    assert.match(run.stdout, /^\[[\d:]+\] A worktree setup done \(\d+\.\ds\)$/m);
    assert.match(run.stdout, /^\[[\d:]+\] B worktree setup failed \(\d+\.\ds\)$/m);
    // The setup's line comes before the story's first line.
    assert.ok(run.stdout.indexOf("A worktree setup done") < run.stdout.indexOf("A start"));
  });
});
