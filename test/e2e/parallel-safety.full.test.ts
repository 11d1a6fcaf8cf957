import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { chaosConfig, moduleWithTest, QUICK_CHECK } from "../chaos/harness.js";
import { type AgentSession, gantry, git, lastRun, makeProject, prdStories, REPO, story } from "./harness.js";

const SCRIPTED = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");
const commitsOf = (root: string, id: string) =>
  git(root, "log", "--format=%s")
    .split("\n")
    .filter((s) => s.startsWith(`gantry(${id}):`)).length;

describe("gantry run --parallel: the tamper check across workers, and work set aside twice", {
  timeout: 600_000,
}, () => {
  it("ref changes an agent makes in the shared ref store are found, a moved one put back, and its story fails; gantry's own ref moves meanwhile (another story's merge) are not the agent's", async () => {
    const config = chaosConfig({
      agent: { timeoutSeconds: 300, sandbox: "off", command: { run: `node ${JSON.stringify(SCRIPTED)}` } },
    });
    const root = makeProject({
      stories: [story("A"), story("B")],
      plan: {},
      config,
      files: { "tools/check.sh": QUICK_CHECK },
    });
    git(root, "branch", "side");
    const baseline = git(root, "rev-parse", "HEAD").trim();
    const home = mkdtempSync(join(tmpdir(), "gantry-parallel-tamper-agent-"));
    const at = JSON.stringify(root);
    // A's session waits until B merged (gantry moved the feature branch and B's refs while A ran), then
    // moves a branch and makes one.
    const sh = `for i in $(seq 1 1250); do git -C ${at} log --format=%s | grep -q 'merge gantry(B)' && break; sleep 0.2; done; git -C ${at} update-ref refs/heads/side HEAD; git -C ${at} update-ref refs/heads/evil HEAD`;
    const plan: Record<string, AgentSession[]> = {
      A: [{ write: moduleWithTest("ma", 2), sh }],
      B: [{ write: moduleWithTest("mb", 2) }],
    };
    writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
    const run = await gantry(root, ["run", "-f", "f", "--parallel", "2"], {
      env: { SCRIPTED_AGENT_HOME: home, SCRIPTED_AGENT_SH_TIMEOUT_MS: "260000" },
      timeoutMs: 500_000,
    });
    assert.equal(run.code, 1, run.stderr.slice(-3000));
    assert.equal(git(root, "rev-parse", "side").trim(), baseline, "the moved branch is put back");
    const { ledger } = lastRun(root);
    const tamper = ledger.filter((l) => l.gate === "tamper");
    assert.deepEqual(
      tamper.map((l) => `${l.storyId}:${l.verdict}`),
      ["A:fail"],
    );
    const changes = ((tamper[0]?.detail ?? {}) as { changes?: { what: string; restored: boolean }[] })
      .changes;
    assert.deepEqual(
      (changes ?? []).map((c) => `${c.what.replace(/[0-9a-f]{12}/g, "<sha>")} ${c.restored}`).sort(),
      // A created ref is recorded, not deleted (src/git/tamper-snapshot.ts: refs/stash would lose its entries).
      ["refs/heads/evil created at <sha> false", "refs/heads/side moved from <sha> to <sha> true"],
    );
    assert.equal(prdStories(root).A?.status, "failed");
    assert.equal(prdStories(root).B?.status, "passed");
    assert.equal(commitsOf(root, "B"), 1);
    assert.equal(commitsOf(root, "A"), 0);
    // Nothing A did is lost: its uncommitted work went to the stash, as in a sequential run.
    assert.match(git(root, "stash", "list"), /gantry\(A\) failed work/);
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
  });

  it("a story whose merge fails twice (a conflict, then again on its rerun) fails, and both attempts' work is kept", async () => {
    const config = chaosConfig({
      agent: { timeoutSeconds: 300, command: { run: `node ${JSON.stringify(SCRIPTED)}` } },
    });
    const root = makeProject({
      stories: [story("C"), story("D"), story("E", { dependencies: ["C"] })],
      plan: {},
      config,
      files: { "tools/check.sh": QUICK_CHECK },
    });
    const home = mkdtempSync(join(tmpdir(), "gantry-parallel-twice-agent-"));
    const log = JSON.stringify(join(home, ".agent-log.jsonl"));
    const until = (condition: string) => `for i in $(seq 1 1250); do ${condition} && exit 0; sleep 0.2; done`;
    const merged = (id: string) =>
      `git -C ${JSON.stringify(root)} log --format=%s | grep -q 'merge gantry(${id})'`;
    const same = (value: number) => ({ "src/same.js": `export function same() {\n  return ${value};\n}\n` });
    // D's first attempt adds src/same.js after C added its own (a conflict); E, on C's tip, changes it while
    // D's rerun (on that same tip) works, and merges first: D's rerun conflicts again.
    const plan: Record<string, AgentSession[]> = {
      C: [{ write: { ...same(3), ...moduleWithTest("mc", 2) } }],
      D: [
        { write: { ...same(4), ...moduleWithTest("md", 2) }, sh: until(merged("C")) },
        { write: { ...same(5), ...moduleWithTest("md", 2) }, sh: until(merged("E")) },
      ],
      E: [
        {
          write: { ...same(6), ...moduleWithTest("me", 2) },
          sh: until(`[ "$(grep -c '"story":"D"' ${log})" -ge 2 ]`),
        },
      ],
    };
    writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
    const run = await gantry(root, ["run", "-f", "f", "--parallel", "3", "--reporter", "json"], {
      env: { SCRIPTED_AGENT_HOME: home, SCRIPTED_AGENT_SH_TIMEOUT_MS: "260000" },
      timeoutMs: 500_000,
    });
    assert.equal(run.code, 1, run.stderr.slice(-3000));
    const merges = lastRun(root).events.filter((e) => e.type === "story:merge");
    assert.deepEqual(
      merges.map((e) => `${e.storyId}:${e.outcome}:${e.next ?? ""}`),
      ["C:merged:", "D:conflict:retry", "E:merged:", "D:conflict:fail"],
    );
    assert.equal(prdStories(root).D?.status, "failed");
    assert.equal(commitsOf(root, "D"), 0);
    assert.match(git(root, "show", "HEAD:src/same.js"), /return 6;/);
    assert.match(git(root, "show", "refs/gantry/failed/D:src/same.js"), /return 5;/);
    assert.match(git(root, "show", "refs/gantry/earlier/D/1:src/same.js"), /return 4;/);
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
  });
});
