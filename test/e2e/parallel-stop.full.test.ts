import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, it } from "node:test";
import {
  chaosConfig,
  killGroup,
  markedProcesses,
  moduleWithTest,
  QUICK_CHECK,
  quickAgentFiles,
  readJsonlStrict,
  reapMarked,
  startGantry,
  waitFor,
} from "../chaos/harness.js";
import { type AgentSession, gantry, git, lastRun, makeProject, prdStories, REPO, story } from "./harness.js";

const SCRIPTED = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");
const worktreeOf = (root: string, id: string) => join(root, ".git", "gantry", "worktrees", "f", id);
const commitsOf = (root: string, id: string) =>
  git(root, "log", "--format=%s")
    .split("\n")
    .filter((s) => s.startsWith(`gantry(${id}):`)).length;

describe("gantry run --parallel: Ctrl-C and the cost cap stop every worker", { timeout: 600_000 }, () => {
  it("Ctrl-C while two stories' agents run: exit 130, no agent process left, both worktrees' work kept, and the next run finishes both", async () => {
    // Unsandboxed, so it is gantry's process-group kill (not bwrap's PID namespace) that takes the sessions down.
    const config = chaosConfig({ agent: { sandbox: "off", timeoutSeconds: 900 } });
    const plan = Object.fromEntries(
      ["A", "B"].map((id) => {
        const work = moduleWithTest(`m${id.toLowerCase()}`, 2);
        return [id, [{ write: work, sleepMs: 300_000 }, { write: work }]];
      }),
    );
    const root = makeProject({
      stories: [story("A"), story("B")],
      plan: {},
      config,
      files: { "tools/check.sh": QUICK_CHECK },
    });
    // The agent's plan and log outside the repository, where every worktree's session finds them.
    const home = mkdtempSync(join(tmpdir(), "gantry-parallel-stop-agent-"));
    for (const [path, content] of Object.entries(quickAgentFiles(plan))) {
      mkdirSync(join(home, path, ".."), { recursive: true });
      writeFileSync(join(home, path), content);
    }
    const marker = `par-stop-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const running = startGantry(root, ["run", "-f", "f", "--parallel", "2"], {
      env: { GANTRY_CHAOS_MARKER: marker, SCRIPTED_AGENT_HOME: home },
      timeoutMs: 600_000,
    });
    const agents = () => markedProcesses(marker).filter((p) => p.cmdline.includes("quick-agent.sh"));
    await waitFor("both stories' agent sessions", () => agents().length >= 2, 120_000);
    await waitFor(
      "both sessions' work in their worktrees",
      () => ["A", "B"].every((id) => existsSync(join(worktreeOf(root, id), `src/m${id.toLowerCase()}.js`))),
      60_000,
    );
    const groups = new Set(agents().map((p) => p.pgid));
    assert.equal(groups.size, 2, "each story's session in its own process group");
    const sent = Date.now();
    killGroup(running.child.pid, "SIGINT");
    const result = await running.done;
    const took = Date.now() - sent;
    const left = markedProcesses(marker);
    await reapMarked(marker);
    assert.equal(result.code, 130, result.stderr.slice(-2000));
    // The sessions sleep 300 s (the agent timeout is 900 s): only a stop that waited for them takes this
    // long, even on a loaded machine.
    assert.ok(took < 100_000, `stopped ${took} ms after Ctrl-C`);
    assert.deepEqual(
      left.map((p) => `${p.pgid} ${p.cmdline}`),
      [],
      "no process of the run (agent sessions and their groups) outlives it",
    );
    // Nothing is lost: each story's uncommitted work is still in its worktree, on its branch.
    for (const id of ["A", "B"]) {
      const file = join(worktreeOf(root, id), `src/m${id.toLowerCase()}.js`);
      assert.match(readFileSync(file, "utf8"), /return 2;/, `${id}'s work kept in its worktree`);
      assert.equal(prdStories(root)[id]?.status, "paused");
      assert.equal(commitsOf(root, id), 0);
    }
    const run = lastRun(root);
    assert.ok(run.events.some((e) => e.type === "run:pause"));
    const state = JSON.parse(readFileSync(join(run.dir, "state.json"), "utf8")) as { status: string };
    assert.equal(state.status, "interrupted");

    const resumed = await gantry(root, ["run", "-f", "f", "--parallel", "2"], {
      env: { SCRIPTED_AGENT_HOME: home },
      timeoutMs: 300_000,
    });
    assert.equal(resumed.code, 0, resumed.stderr.slice(-3000));
    assert.match(resumed.stderr, /A: its worktree from the previous run is taken up again/);
    for (const id of ["A", "B"]) {
      assert.equal(prdStories(root)[id]?.status, "passed");
      assert.equal(commitsOf(root, id), 1, `${id} committed once`);
    }
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
    assert.equal(git(root, "for-each-ref", "refs/heads/gantry").trim(), "");
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });

  it("execution.costLimitUsd counts every worker's spend: once reached no new story starts, the run exits 3 with the total of both", async () => {
    // A stand-in `claude` (the scripted agent behind Claude Code's --version and JSON result): $0.05 a session.
    const bin = mkdtempSync(join(tmpdir(), "gantry-parallel-cost-bin-"));
    writeFileSync(
      join(bin, "claude"),
      `#!/bin/sh\n[ "$1" = --version ] && { echo "9.9.9 (Claude Code, fake)"; exit 0; }\n[ "$1" = auth ] && { echo '{"loggedIn": true}'; exit 0; }\nexec node ${JSON.stringify(SCRIPTED)}\n`,
    );
    chmodSync(join(bin, "claude"), 0o755);
    const result = (story: string) =>
      JSON.stringify({
        type: "result",
        subtype: "success",
        is_error: false,
        result: `${story} done`,
        total_cost_usd: 0.05,
        usage: { input_tokens: 1000, output_tokens: 100 },
      });
    const config = chaosConfig({
      agent: { default: "claude", timeoutSeconds: 120, sandbox: "off" },
      execution: { costLimitUsd: 0.05 },
    });
    const ids = ["A", "B", "C", "D"];
    const root = makeProject({
      stories: ids.map((id) => story(id)),
      plan: {},
      config,
      files: { "tools/check.sh": QUICK_CHECK },
    });
    const home = mkdtempSync(join(tmpdir(), "gantry-parallel-cost-agent-"));
    // A's and B's sessions both start at $0: each waits until the other has begun (it is in the agent's log).
    const log = JSON.stringify(join(home, ".agent-log.jsonl"));
    const afterStart = (other: string) =>
      `for i in $(seq 1 600); do grep -q '"story":"${other}"' ${log} && exit 0; sleep 0.2; done`;
    const plan: Record<string, AgentSession[]> = Object.fromEntries(
      ids.map((id) => [
        id,
        [
          {
            write: moduleWithTest(`m${id.toLowerCase()}`, 2),
            print: `${result(id)}\n`,
            ...(id === "A" ? { sh: afterStart("B") } : id === "B" ? { sh: afterStart("A") } : {}),
          },
        ],
      ]),
    );
    writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
    const run = await gantry(root, ["run", "-f", "f", "--parallel", "2"], {
      env: {
        SCRIPTED_AGENT_HOME: home,
        SCRIPTED_AGENT_SH_TIMEOUT_MS: "130000",
        // Sandbox off as root: Claude Code runs only where the environment says it is sandboxed.
        IS_SANDBOX: "1",
        PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
      },
      timeoutMs: 300_000,
    });
    assert.equal(run.code, 3, run.stderr.slice(-3000));
    const sessions = readJsonlStrict(join(home, ".agent-log.jsonl")).rows.map((r) => String(r.story));
    assert.deepEqual(sessions.sort(), ["A", "B"], "only the two stories begun under the cap spent anything");
    const { events, dir } = lastRun(root);
    // The stories not begun never started: no story:start, no worktree, their place kept.
    const started = events.filter((e) => e.type === "story:start").map((e) => (e.story as { id: string }).id);
    assert.deepEqual(started.sort(), ["A", "B"]);
    for (const id of ["C", "D"]) {
      assert.equal(prdStories(root)[id]?.status, "pending");
      assert.equal(existsSync(worktreeOf(root, id)), false);
    }
    // The two that spent were judged and merged: the cap stops new spending, not work already paid for.
    for (const id of ["A", "B"]) {
      assert.equal(prdStories(root)[id]?.status, "passed");
      assert.equal(commitsOf(root, id), 1);
    }
    const cost = readJsonlStrict(join(dir, "cost.jsonl")).rows;
    assert.deepEqual(cost.map((c) => `${c.story}:${c.costUsd}`).sort(), ["A:0.05", "B:0.05"]);
    const complete = events.find((e) => e.type === "run:complete") as {
      summary: { costUsd: number; paused: number };
      exitCode: number;
    };
    assert.ok(Math.abs(complete.summary.costUsd - 0.1) < 1e-9, String(complete.summary.costUsd));
    assert.equal(complete.exitCode, 3);
    const pause = events.find((e) => e.type === "run:pause");
    assert.match(String(pause?.reason), /cost limit reached: \$0\.10 of \$0\.05/);
  });
});
