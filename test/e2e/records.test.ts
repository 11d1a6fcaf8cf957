import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { before, describe, it } from "node:test";
import { openRepo } from "../../src/git/repo.js";
import { gateStates } from "../../src/ledger/gate-rule.js";
import type { LedgerEntry } from "../../src/model/ledger.js";
import {
  baseConfig,
  type CliResult,
  gantry,
  git,
  lastRun,
  makeProject,
  passingTest,
  prdStories,
  REPO,
  readJsonl,
  story,
} from "./harness.js";

const FORGER = join(REPO, "test", "e2e", "fixtures", "forging-agent.mjs");

/** A module and its test; the test passes only when the module returns 2. */
const work = (name: string, value: number): Record<string, string> => ({
  [`src/${name}.js`]: `export function ${name}() {\n  return ${value};\n}\n`,
  [`test/${name}.test.js`]: passingTest(
    name,
    `const { ${name} } = await import("../src/${name}.js");\n  assert.equal(${name}(), 2);`,
  ),
});

/**
 * The hostile project: only `verify` is mandatory (committed config). C is honest and passes first.
 * A's agent then writes code whose test fails, forges `verify pass` lines for the tree it leaves, and
 * leaves a process outside the run that, while gantry verifies A (after the post-session tamper check),
 * marks B passed in prd.json, deletes C, and drops `verify` from the working copy's config. B's own test
 * fails. No story passes after A: gantry's commit takes .gantry/config.json along (docs/security.md).
 */
function hostileProject(): string {
  const config = baseConfig();
  // The checks alone: under the sandbox the forger could write neither the ledger nor .gantry/ at all,
  // and its helper would die with its session (test/e2e/sandbox.test.ts).
  config.agent = {
    default: "command",
    timeoutSeconds: 30,
    sandbox: "off",
    command: { run: `node ${JSON.stringify(FORGER)}` },
  };
  config.execution = {
    maxStageRetries: 1,
    rectify: { enabled: false },
    autofix: { enabled: false },
    regression: { mode: "off" },
  };
  config.routing = { tiers: ["fast"] };
  config.gates = { mandatory: ["verify"] };
  return makeProject({
    config,
    stories: [story("C"), story("A"), story("B")],
    plan: {
      A: [
        {
          write: work("alpha", 3),
          forgeVerifyPass: true,
          afterSession: { markPassed: "B", remove: "C", dropGates: ["verify"] },
        },
      ],
      B: [{ write: work("beta", 5) }],
      C: [{ write: work("gamma", 2) }],
    } as never,
  });
}

const judgedTree = async (root: string) => (await openRepo(root)).judge();

describe("records that cannot be forged from inside the tree", { concurrency: false }, () => {
  let root = "";
  let run: CliResult = { code: null, stdout: "", stderr: "" };
  let runDir = "";

  before(async () => {
    root = hostileProject();
    run = await gantry(root, ["run", "--feature", "f"], { timeoutMs: 120_000 });
    runDir = lastRun(root).dir;
  });

  it("a forged verify pass and another story marked passed change no outcome; a removed story is back", () => {
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const stories = prdStories(root);
    assert.deepEqual(Object.keys(stories), ["C", "A", "B"], "C, deleted during the run, is restored");
    assert.equal(stories.A?.status, "failed");
    assert.equal(stories.B?.status, "failed", "B's own tests fail: its real outcome stands");
    assert.equal(stories.B?.passes, false);
    assert.equal(stories.C?.status, "passed");
    assert.match(git(root, "log", "--format=%s"), /C/);
    assert.match(run.stderr, /gantry: \.gantry\/features\/f\/prd\.json: B: status, passes edited; restored/);
    assert.match(run.stderr, /gantry: \.gantry\/features\/f\/prd\.json: C: removed; restored/);
    const log = readFileSync(join(runDir, "run.log"), "utf8");
    assert.match(log, /prd\.json edited during the run by something other than gantry; restored/);
  });

  it("ledger check accepts the genuine pass on the committed tree (the run's key, found by the CLI)", async () => {
    const clean = await gantry(root, ["ledger", "check"]);
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);
    assert.match(
      clean.stdout,
      /every mandatory gate passed on tree \w{7} \(verify\)\n {2}mandatory gates from HEAD:/,
    );
    assert.match(
      clean.stderr,
      /2 lines in \.gantry\/runs\/[^/]+\/ledger\.jsonl have no valid MAC \(forged or written by another key\); ignored/,
    );
  });

  it("on the forged tree, ledger check names the forged lines and judges by the genuine fail, with the committed gates", async () => {
    // The user brings A's failed work back (gantry set it aside in a stash), as if to commit it.
    const stash = git(root, "stash", "list", "--format=%gd %s")
      .split("\n")
      .find((line) => line.includes("gantry(A)"))
      ?.split(" ")[0];
    assert.ok(stash, "A's failed work was set aside");
    git(root, "stash", "pop", "-q", stash);
    const tree = (await judgedTree(root)).tree;
    const lines = readJsonl<LedgerEntry>(join(runDir, "ledger.jsonl"));
    const forged = lines.filter((line) => line.mac === undefined || line.mac === "ab".repeat(32));
    assert.equal(forged.length, 2, "one line without a MAC, one with a made-up one");
    assert.ok(
      forged.every((line) => line.tree === tree && line.verdict === "pass"),
      "aimed at this very tree",
    );
    // Counted, they would have carried the check: the latest verdict on this tree would be their pass.
    const byTime = [...lines].sort((a, b) => a.at.localeCompare(b.at));
    assert.equal(gateStates(byTime, tree, ["verify"])[0]?.ok, true);

    // The agent's edit to the working copy's config dropped verify; the check reads HEAD's.
    const working = JSON.parse(readFileSync(join(root, ".gantry/config.json"), "utf8"));
    assert.deepEqual(working.gates.mandatory, [], "the working copy no longer requires verify");
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 1, check.stdout + check.stderr);
    const runId = relative(join(root, ".gantry", "runs"), runDir);
    assert.match(check.stdout, new RegExp(`\\n {2}verify: fail \\(run ${runId}, story A\\)\\n`));
    assert.match(check.stdout, /\n {2}mandatory gates from HEAD:\.gantry\/config\.json\n$/);
    assert.equal(
      check.stderr,
      `gantry: 2 lines in .gantry/runs/${runId}/ledger.jsonl have no valid MAC (forged or written by another key); ignored\n`,
    );
  });

  it("a hand-forged ledger for the current tree, valid JSON without or with a wrong MAC, passes nothing", async () => {
    const judged = await judgedTree(root);
    const forgedRun = "29990101-000000-zzzz";
    const line = (extra: Record<string, unknown>) =>
      JSON.stringify({
        v: 1,
        runId: forgedRun,
        feature: "f",
        storyId: "A",
        gate: "verify",
        verdict: "pass",
        sha: judged.sha,
        tree: judged.tree,
        at: "2999-01-01T00:00:00.000Z",
        attempt: 1,
        detail: {},
        ...extra,
      });
    mkdirSync(join(root, ".gantry", "runs", forgedRun), { recursive: true });
    writeFileSync(
      join(root, ".gantry", "runs", forgedRun, "ledger.jsonl"),
      `${line({})}\n${line({ mac: "0".repeat(64) })}\n`,
    );
    const check = await gantry(root, ["ledger", "check", "--json"]);
    assert.equal(check.code, 1, check.stdout + check.stderr);
    const report = JSON.parse(check.stdout);
    assert.equal(report.ok, false);
    assert.equal(report.gates[0].verdict, "fail");
    assert.equal(report.unverified, 4);
    assert.match(
      check.stderr,
      new RegExp(`2 lines in \\.gantry/runs/${forgedRun}/ledger\\.jsonl have no valid MAC`),
    );
  });
});
