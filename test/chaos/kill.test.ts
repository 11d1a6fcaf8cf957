import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { agentCalls, gantry, git } from "../e2e/harness.js";
import {
  chaosConfig,
  chaosProject,
  chaosSeed,
  markedProcesses,
  moduleWithTest,
  Rng,
  reapMarked,
  startGantry,
  waitFor,
} from "./harness.js";
import { describeTrial, runTrial, type TrialReport } from "./kill.harness.js";

/**
 * Crash anywhere, lose nothing. GANTRY_CHAOS_TRIALS trials (default 1; `npm run test:full` runs 3,
 * `npm run test:chaos` 30),
 * each from a seed derived from GANTRY_CHAOS_SEED (or the clock); a failure names the trial's own seed,
 * and GANTRY_CHAOS_SEED=<it> GANTRY_CHAOS_TRIALS=1 replays it.
 */
const trials = Math.max(1, Number.parseInt(process.env.GANTRY_CHAOS_TRIALS ?? "1", 10) || 1);
const base = chaosSeed();
const seeds =
  trials === 1
    ? [base]
    : Array.from({ length: trials }, (_, i) => (i === 0 ? base : new Rng(base + i).int(1, 2 ** 31)));
const reports: TrialReport[] = [];

describe(`SIGKILL at seeded moments (${trials} trials, base seed ${base})`, {
  concurrency: Math.min(trials + 1, 4),
}, () => {
  for (const seed of seeds) {
    it(`trial seed ${seed}: every story ends passed, committed once, with its verdicts; every file parses`, async () => {
      const report = await runTrial(seed);
      reports.push(report);
      assert.deepEqual(report.violations, [], describeTrial(report));
    });
  }

  it("an unsandboxed agent session dies with a gantry killed by SIGKILL, so its late writes never reach a commit", async () => {
    const marker = `orphan-${process.pid}-${Math.random().toString(36).slice(2)}`;
    // Unsandboxed: under bwrap (--die-with-parent) the session dies with gantry (test/e2e/sandbox.test.ts).
    const config = chaosConfig({
      agent: { sandbox: "off" },
      execution: { rectify: { enabled: true, maxAttempts: 0 } },
    });
    config.routing = { tiers: ["fast"] };
    const root = chaosProject({
      config,
      plan: {
        "US-1": [
          { sleepMs: 2_000, lateWrite: moduleWithTest("alpha", 3, 2) },
          { write: moduleWithTest("alpha", 2) },
        ],
        "US-2": [{ write: moduleWithTest("beta", 2), sleepMs: 1_000 }],
        "US-3": [{ write: moduleWithTest("gamma", 2), sleepMs: 500 }],
      },
    });
    const env = { GANTRY_CHAOS_MARKER: marker };
    const first = startGantry(root, ["run", "--feature", "f"], { env });
    await waitFor("US-1's first session", () => agentCalls(root).some((c) => c.story === "US-1"));
    first.child.kill("SIGKILL");
    await first.done;
    // The reaper (src/process/group-reaper.ts) kills the session's group when the pipe from gantry ends.
    const session = () => markedProcesses(marker).filter((p) => p.cmdline.includes("quick-agent.sh"));
    await waitFor("the killed run's agent session to end", () => session().length === 0, 10_000);
    const resumed = await gantry(root, ["run", "--feature", "f"], { env, timeoutMs: 180_000 });
    await reapMarked(marker);
    assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
    assert.match(
      git(root, "show", "HEAD:src/alpha.js"),
      /return 2;/,
      "the orphan's stale write is not committed",
    );
    assert.equal(git(root, "status", "--porcelain"), "");
  });

  after(() => {
    const mine = reports.filter((r) => !parallelReports.includes(r));
    const injected = mine.reduce((n, r) => n + r.injected, 0);
    const orphaned = mine.filter((r) => r.orphansAfterKill.some((p) => p.length > 0)).length;
    const left = mine.filter((r) => r.leftAtEnd.length > 0);
    const lost = mine.filter((r) => r.violations.length > 0).length;
    process.stdout.write(
      `# chaos kill: ${mine.length} trials, ${injected} kills injected, ${lost} trials lost something; ` +
        `${orphaned} trials had processes outliving the killed gantry; ${left.length} left processes at the end\n`,
    );
    for (const r of left)
      process.stdout.write(
        `#   seed ${r.seed}: left ${r.leftAtEnd.map((p) => p.cmdline.slice(0, 80)).join(" | ")}\n`,
      );
  });
});

/**
 * The same crashes with `--parallel 3`: stories in worktrees, merged back one at a time. A kill lands
 * anywhere (a worker's session, a merge being judged, between the merge commit and the main tree
 * following it); the next runs find every worktree, merge finished work, resume the rest. None in `npm test`
 * (GANTRY_CHAOS_PARALLEL_TRIALS; `npm run test:full` runs 2, `npm run test:chaos` 10).
 */
const parallelTrials = Math.max(0, Number.parseInt(process.env.GANTRY_CHAOS_PARALLEL_TRIALS ?? "0", 10) || 0);
const parallelReports: TrialReport[] = [];

describe(`SIGKILL at seeded moments, --parallel 3 (${parallelTrials} trials, base seed ${base})`, {
  concurrency: Math.max(1, Math.min(parallelTrials, 2)),
  skip:
    parallelTrials === 0
      ? "npm run test:full and test:chaos run these (GANTRY_CHAOS_PARALLEL_TRIALS)"
      : false,
}, () => {
  for (let i = 0; i < parallelTrials; i++) {
    const seed = new Rng(base + 1000 + i).int(1, 2 ** 31);
    it(`parallel trial seed ${seed}: every story merged once with its verdicts; no worktree or branch left`, async () => {
      const report = await runTrial(seed, { parallel: 3 });
      parallelReports.push(report);
      reports.push(report);
      assert.deepEqual(report.violations, [], describeTrial(report));
    });
  }

  after(() => {
    const injected = parallelReports.reduce((n, r) => n + r.injected, 0);
    const lost = parallelReports.filter((r) => r.violations.length > 0).length;
    process.stdout.write(
      `# chaos kill --parallel 3: ${parallelReports.length} trials, ${injected} kills injected, ${lost} trials lost something\n`,
    );
  });
});
