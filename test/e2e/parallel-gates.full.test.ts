import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { chaosConfig, moduleWithTest, QUICK_CHECK } from "../chaos/project.js";
import { type AgentSession, gantry, git, lastRun, makeProject, prdStories, REPO, story } from "./harness.js";

const AGENT = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");
/** The app "runs" unless the two features C and D are both in it: each alone is fine, merged they clash. */
const SMOKE = `if [ -f src/c.flag ] && [ -f src/d.flag ]; then echo "c and d clash" >&2; exit 1; fi\necho smoke ok\n`;

type Line = { storyId: string; gate: string; verdict: string; tree: string; detail: Record<string, unknown> };
type Event = Record<string, unknown> & { type: string; storyId?: string };

/**
 * `--parallel 2` with the between-stories checks set (quality.commands build and smoke) and readiness
 * made mandatory: gates that only another stage records must hold on the merged tree too. The story check
 * runs again on the merged tree (phase `merge`); the readiness pass is carried onto it, naming the tree it
 * was judged on. One repository, two runs: A and B merge; then D, whose merge with C breaks the smoke
 * command, is not committed.
 */
describe("gantry run --parallel 2 with story-check and readiness mandatory", { timeout: 600_000 }, () => {
  let root: string;
  let home: string;
  before(() => {
    const config = chaosConfig({
      agent: { timeoutSeconds: 300, command: { run: `node ${JSON.stringify(AGENT)}` } },
      quality: {
        commands: {
          test: "sh tools/check.sh",
          testScoped: "sh tools/check.sh {{files}}",
          lint: "! grep -rn LINT_ERROR src",
          build: { run: "sh tools/build.sh", expect: "built" },
          smoke: "sh tools/smoke.sh",
        },
      },
    });
    Object.assign(config, {
      readiness: { enabled: true },
      gates: { mandatory: ["verify", "review", "test-integrity", "story-check", "readiness"] },
      interaction: { channel: "auto", triggers: { "merge-conflict": { enabled: true, fallback: "skip" } } },
    });
    root = makeProject({
      stories: ["A", "B", "C", "D"].map((id) =>
        story(id, { acceptanceCriteria: [`m${id.toLowerCase()}() returns 2`] }),
      ),
      plan: {},
      config,
      files: {
        "tools/check.sh": QUICK_CHECK,
        "tools/build.sh": "test -f src/base.js && echo built\n",
        "tools/smoke.sh": SMOKE,
      },
    });
    const afterMerge = (id: string, session: AgentSession): AgentSession => ({
      ...session,
      sh: `for i in $(seq 1 1250); do git -C ${JSON.stringify(root)} log --format=%s | grep -q 'merge gantry(${id})' && exit 0; sleep 0.2; done`,
    });
    const plan: Record<string, AgentSession[]> = {
      A: [{ write: moduleWithTest("ma", 2) }],
      B: [{ write: moduleWithTest("mb", 2) }],
      C: [{ write: { "src/c.flag": "c\n", ...moduleWithTest("mc", 2) } }],
      D: [afterMerge("C", { write: { "src/d.flag": "d\n", ...moduleWithTest("md", 2) } })],
    };
    home = mkdtempSync(join(tmpdir(), "gantry-parallel-gates-agent-"));
    writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
  });
  const run = (...stories: string[]) =>
    gantry(
      root,
      ["run", "-f", "f", "--parallel", "2", "--reporter", "json", ...stories.flatMap((s) => ["--story", s])],
      { env: { SCRIPTED_AGENT_HOME: home, SCRIPTED_AGENT_SH_TIMEOUT_MS: "260000" }, timeoutMs: 500_000 },
    );

  it("two independent stories both merge and pass; the story check ran on each merged tree and ledger check passes", async () => {
    const result = await run("A", "B");
    assert.equal(result.code, 0, result.stderr.slice(-3000));
    assert.equal(prdStories(root).A?.status, "passed");
    assert.equal(prdStories(root).B?.status, "passed");
    const { events, ledger } = lastRun(root) as unknown as { events: Event[]; ledger: Line[] };
    for (const id of ["A", "B"]) {
      const merge = events.find((e) => e.type === "story:merge" && e.storyId === id);
      assert.equal(merge?.outcome, "merged", JSON.stringify(merge));
      const onMerged = ledger.filter((l) => l.storyId === id && l.tree === merge?.tree);
      // The first to merge finds the branch where it branched: its merged tree is its worktree's, whose
      // `exit` check is the one on that tree; the second's merged tree is new and checked in phase `merge`.
      const phase = merge === events.find((e) => e.type === "story:merge") ? "exit" : "merge";
      const check = onMerged.find((l) => l.gate === "story-check" && l.detail.phase === phase);
      assert.equal(check?.verdict, "pass", `${id}: ${JSON.stringify(onMerged)}`);
      const ready = onMerged.find((l) => l.gate === "readiness");
      assert.equal(ready?.verdict, "pass", `${id}: readiness carried onto the merged tree`);
      // Carried from the verdict on the tree the story started from, which is on record as a pass.
      const first = ledger.find((l) => l.storyId === id && l.gate === "readiness" && !l.detail.carriedFrom);
      assert.equal(first?.verdict, "pass");
      assert.equal(ready?.detail.carriedFrom, first?.tree);
      assert.notEqual(first?.tree, merge?.tree);
    }
    const subjects = git(root, "log", "--format=%s");
    assert.match(subjects, /merge gantry\(A\)/);
    assert.match(subjects, /merge gantry\(B\)/);
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /story-check, readiness/);
  });

  it("a story whose merge breaks the smoke command is not committed; its work is kept under refs/gantry/failed", async () => {
    const result = await run("C", "D");
    assert.equal(result.code, 1, result.stderr.slice(-3000));
    const { events, ledger } = lastRun(root) as unknown as { events: Event[]; ledger: Line[] };
    const merges = events.filter((e) => e.type === "story:merge");
    assert.deepEqual(
      merges.map((e) => `${e.storyId}:${e.outcome}`),
      ["C:merged", "D:failed"],
    );
    assert.match(String(merges[1]?.reason), /on the merged tree: story-check: smoke \(exit code 1\)/);
    // D passed its own checks in its worktree (C's flag was not there yet), and failed only merged.
    const d = ledger.filter((l) => l.storyId === "D" && l.gate === "story-check");
    assert.deepEqual(
      d.map((l) => `${l.detail.phase}:${l.verdict}`),
      ["entry:pass", "exit:pass", "merge:fail"],
    );
    assert.equal(prdStories(root).D?.status, "skipped");
    assert.equal(prdStories(root).C?.status, "passed");
    assert.doesNotMatch(git(root, "log", "--format=%s"), /gantry\(D\)/);
    assert.equal(git(root, "ls-tree", "--name-only", "HEAD", "src/d.flag").trim(), "");
    assert.equal(git(root, "show", "refs/gantry/failed/D:src/d.flag"), "d\n");
    // Only gantry's record of D's status is not committed (as for any story that did not pass).
    assert.equal(git(root, "status", "--porcelain"), " M .gantry/features/f/prd.json\n");
    // The branch as it stands still passes every mandatory gate: the broken merge never landed.
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});
