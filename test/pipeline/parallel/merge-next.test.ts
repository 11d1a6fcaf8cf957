import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { moduleWithTest } from "../../chaos/project.js";
import { type AgentSession, gantry, git, lastRun, prdStories } from "../../e2e/harness.js";
import { scriptedProject } from "../../support/scripted-project.js";

/**
 * A merge that cannot be made says what follows it. With the merge-conflict trigger off, its fallback runs
 * the story again on the new tip: the line says so, rather than the story just starting again.
 */
describe("a refused merge says what follows (built CLI, --parallel 2)", () => {
  it("B conflicts with A's merged work, the line says it runs again on the new tip, and its rerun merges", async () => {
    const project = scriptedProject({ agent: { timeoutSeconds: 120 } });
    const { root } = project;
    const mergedA = `for i in $(seq 1 500); do git -C ${JSON.stringify(root)} log --format=%s | grep -q 'merge gantry(A)' && exit 0; sleep 0.2; done`;
    const same = (value: number) => ({ "src/same.js": `export function same() {\n  return ${value};\n}\n` });
    const plan: Record<string, AgentSession[]> = {
      A: [{ write: { ...same(3), ...moduleWithTest("ma", 2) } }],
      // B's first session ends after A merged, with its own src/same.js: a conflict. Its rerun, on A's tip, keeps A's.
      B: [
        { write: { ...same(4), ...moduleWithTest("mb", 2) }, sh: mergedA },
        { write: moduleWithTest("mb", 3) },
      ],
    };
    const run = await project.run(plan, ["--parallel", "2"], 240_000);
    assert.equal(run.code, 0, run.stdout.slice(-3000) + run.stderr.slice(-2000));
    const merges = lastRun(root).events.filter((e) => e.type === "story:merge");
    assert.deepEqual(
      merges.map((e) => `${e.storyId}:${e.outcome}:${e.next ?? ""}`),
      ["A:merged:", "B:conflict:retry", "B:merged:"],
    );
    assert.match(
      run.stdout,
      /^\[[\d:]+\] B did not merge: .*src\/same\.js.*; it runs again on the new tip \(merge-conflict's fallback, retry\)$/m,
    );
    // A pass in a worktree is not yet a story passed: the line says so, and the merge makes it passed.
    assert.match(
      run.stdout,
      /^\[[\d:]+\] B passed in its worktree in [\d.]+s \(1 agent session, tier \w+\); merging it into the feature branch$/m,
    );
    assert.doesNotMatch(run.stdout, /PASSED/);
    // gantry runs counts each story once by its last end, also for a run whose summary was never written.
    const events = join(lastRun(root).dir, "events.jsonl");
    const lines = readFileSync(events, "utf8").split("\n");
    writeFileSync(events, lines.filter((l) => !l.startsWith('{"type":"run:complete"')).join("\n"));
    const [listed] = JSON.parse((await gantry(root, ["runs", "--json"])).stdout) as {
      passed: number;
      failed: number;
    }[];
    assert.deepEqual([listed?.passed, listed?.failed], [2, 0]);
    assert.equal(prdStories(root).B?.status, "passed");
    assert.match(git(root, "show", "HEAD:src/same.js"), /return 3;/);
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout);
  });
});
