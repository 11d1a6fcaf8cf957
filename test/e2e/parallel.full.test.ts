import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { chaosConfig, moduleWithTest, QUICK_CHECK } from "../chaos/project.js";
import {
  type AgentSession,
  type CliResult,
  gantry,
  git,
  lastRun,
  makeProject,
  REPO,
  story,
} from "./harness.js";

const AGENT = join(REPO, "test", "e2e", "fixtures", "scripted-agent.mjs");
/** An agent session that first waits (at most 250 s: a loaded machine is slow) until the feature branch holds `story`'s merge. */
const afterMerge = (root: string, id: string, session: AgentSession): AgentSession => ({
  ...session,
  sh: `for i in $(seq 1 1250); do git -C ${JSON.stringify(root)} log --format=%s | grep -q 'merge gantry(${id})' && exit 0; sleep 0.2; done`,
});

type Event = Record<string, unknown> & { type: string; storyId?: string; story?: { id: string } };
const idOf = (e: Event) => e.story?.id ?? e.storyId;

/**
 * One `gantry run --parallel 3` over six stories that show, together: the DAG (E depends on A), events of
 * stories in flight at once, a merge conflict (C and D write the same new file; D runs again on the new
 * tip), and a merged tree that fails although the worktree passed (B's test expects what A changes; B
 * runs again). The agent waits for a named merge where the order matters, so nothing rests on timing.
 */
describe("gantry run --parallel 3", () => {
  let root: string;
  let run: CliResult;
  let events: Event[];
  let hookLog: string;

  before(async () => {
    const config = chaosConfig({
      agent: { timeoutSeconds: 300, command: { run: `node ${JSON.stringify(AGENT)}` } },
    });
    hookLog = join(mkdtempSync(join(tmpdir(), "gantry-parallel-hooks-")), "hooks.log");
    Object.assign(config, {
      hooks: { "on-story-complete": `printf '%s\\n' "$GANTRY_STORY_ID" >> ${JSON.stringify(hookLog)}` },
    });
    root = makeProject({
      stories: ["A", "B", "C", "D", "E", "F"].map((id) =>
        story(id, id === "E" ? { dependencies: ["A"] } : {}),
      ),
      plan: {},
      config,
      files: {
        "tools/check.sh": QUICK_CHECK,
        ...moduleWithTest("util", 1),
      },
    });
    const same = (value: number) => ({ "src/same.js": `export function same() {\n  return ${value};\n}\n` });
    const expectsUtil = (value: number) => ({
      "test/b.test.js": moduleWithTest("util", value)["test/util.test.js"] as string,
    });
    const plan: Record<string, AgentSession[]> = {
      A: [{ write: { ...moduleWithTest("util", 3), ...moduleWithTest("ma", 2) } }],
      B: [afterMerge(root, "A", { write: expectsUtil(1) }), { write: expectsUtil(3) }],
      C: [{ write: { ...same(3), ...moduleWithTest("mc", 2) } }],
      D: [
        afterMerge(root, "C", { write: { ...same(4), ...moduleWithTest("md", 2) } }),
        { write: moduleWithTest("md", 2) },
      ],
      E: [{ write: moduleWithTest("me", 2) }],
      F: [{ write: moduleWithTest("mf", 2) }],
    };
    const home = mkdtempSync(join(tmpdir(), "gantry-parallel-agent-"));
    writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
    run = await gantry(root, ["run", "--feature", "f", "--parallel", "3", "--reporter", "json"], {
      env: { SCRIPTED_AGENT_HOME: home, SCRIPTED_AGENT_SH_TIMEOUT_MS: "260000" },
      // A safety kill, not a speed limit: on a loaded machine this run has taken minutes.
      timeoutMs: 600_000,
    });
    events = lastRun(root).events as Event[];
  });

  it("passes every story, each story's commit once, the tree clean and no worktree or story branch left", () => {
    assert.equal(run.code, 0, run.stderr.slice(-3000));
    const subjects = git(root, "log", "--format=%s").split("\n");
    for (const id of ["A", "B", "C", "D", "E", "F"])
      assert.equal(
        subjects.filter((s) => s.startsWith(`gantry(${id}):`)).length,
        1,
        `${id}: ${subjects.join(" | ")}`,
      );
    assert.equal(git(root, "status", "--porcelain"), "");
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
    assert.equal(git(root, "for-each-ref", "refs/heads/gantry").trim(), "");
    assert.match(git(root, "show", "HEAD:src/util.js"), /return 3;/);
  });

  it("never starts a story before its dependency merged (from the events log)", () => {
    const merged = events.findIndex(
      (e) => e.type === "story:merge" && e.storyId === "A" && e.outcome === "merged",
    );
    const started = events.findIndex((e) => e.type === "story:start" && idOf(e) === "E");
    assert.ok(merged >= 0 && started > merged, `A merged at ${merged}, E started at ${started}`);
  });

  it("runs stories at once, and every subscriber sees their interleaved events with the right story ids", () => {
    const startA = events.findIndex((e) => e.type === "story:start" && idOf(e) === "A");
    const doneA = events.findIndex((e) => e.type === "story:complete" && idOf(e) === "A");
    const others = new Set(
      events
        .slice(startA, doneA)
        .map(idOf)
        .filter((id) => id !== undefined && id !== "A"),
    );
    assert.ok(others.size >= 2, `stories in flight while A ran: ${[...others].join(", ")}`);
    // The json reporter got the same stream, story ids and all.
    const reported = run.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Event);
    assert.deepEqual(
      reported.map((e) => `${e.type} ${idOf(e) ?? ""}`),
      events.map((e) => `${e.type} ${idOf(e) ?? ""}`),
    );
    // Every stage event of a story lies between that story's start and its end.
    for (const e of events.filter((x) => x.type === "stage:enter" && x.stage === "execution")) {
      const id = idOf(e);
      const at = events.indexOf(e);
      assert.ok(
        events.slice(0, at).some((s) => s.type === "story:start" && idOf(s) === id),
        `execution of ${id} before its story:start`,
      );
    }
    // The ledger binds each story's verdicts under its own id; the hook ran once per completed story.
    const ledger = lastRun(root).ledger as { storyId: string; gate: string; verdict: string }[];
    for (const id of ["A", "B", "C", "D", "E", "F"])
      assert.ok(
        ledger.some((l) => l.storyId === id && l.gate === "verify" && l.verdict === "pass"),
        id,
      );
    const hooked = readFileSync(hookLog, "utf8").trim().split("\n").sort();
    const completed = events
      .filter((e) => e.type === "story:complete")
      .map((e) => idOf(e) as string)
      .sort();
    assert.deepEqual(hooked, completed);
  });

  it("a merge conflict is reported, the story's first work kept in refs/gantry/failed, and the story run again on the new tip", () => {
    const d = events.filter((e) => e.type === "story:merge" && e.storyId === "D");
    assert.deepEqual(
      d.map((e) => e.outcome),
      ["conflict", "merged"],
    );
    assert.deepEqual(d[0]?.files, ["src/same.js"]);
    assert.match(git(root, "show", "refs/gantry/failed/D:src/same.js"), /return 4;/);
    assert.match(git(root, "show", "HEAD:src/same.js"), /return 3;/);
  });

  it("a merged tree that fails the story's tests is not committed although the worktree passed", () => {
    const b = events.filter((e) => e.type === "story:merge" && e.storyId === "B");
    assert.deepEqual(
      b.map((e) => e.outcome),
      ["failed", "merged"],
    );
    assert.match(String(b[0]?.reason), /on the merged tree/);
    // The failing merge's verify verdict is on record, bound to a tree no commit holds.
    const ledger = lastRun(root).ledger as { storyId: string; gate: string; verdict: string; tree: string }[];
    const failed = ledger.find((l) => l.storyId === "B" && l.gate === "verify" && l.verdict === "fail");
    assert.ok(failed, "B's failing verify on the merged tree is in the ledger");
    assert.match(git(root, "show", "refs/gantry/failed/B:test/b.test.js"), /assert\.equal\(util\(\), 1\)/);
    assert.match(git(root, "show", "HEAD:test/b.test.js"), /assert\.equal\(util\(\), 3\)/);
  });

  it("ledger check passes on the merged feature branch", async () => {
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
  });
});

describe("gantry run --parallel 3: the run's caps hold across workers", () => {
  it("execution.maxIterations counts every worker's passes: two passes in all, then the run pauses (exit 3) and the stories not begun keep their place", async () => {
    const config = chaosConfig({
      agent: { command: { run: `node ${JSON.stringify(AGENT)}` } },
      execution: { maxIterations: 2 },
    });
    const root = makeProject({
      stories: ["A", "B", "C", "D"].map((id) => story(id)),
      plan: {},
      config,
      files: { "tools/check.sh": QUICK_CHECK },
    });
    const home = mkdtempSync(join(tmpdir(), "gantry-parallel-agent-"));
    const plan = Object.fromEntries(
      ["A", "B", "C", "D"].map((id) => [
        id,
        [{ write: moduleWithTest(`m${id.toLowerCase()}`, 2), sleepMs: 500 }],
      ]),
    );
    writeFileSync(join(home, ".agent-plan.json"), JSON.stringify(plan));
    const run = await gantry(root, ["run", "--feature", "f", "--parallel", "3"], {
      env: { SCRIPTED_AGENT_HOME: home },
      timeoutMs: 600_000,
    });
    assert.equal(run.code, 3, run.stderr.slice(-2000));
    assert.match(run.stderr + run.stdout, /maxIterations \(2\) reached/);
    const sessions = readFileSync(join(home, ".agent-log.jsonl"), "utf8").trim().split("\n");
    assert.equal(sessions.length, 2, sessions.join("\n"));
    const merged = git(root, "log", "--format=%s")
      .split("\n")
      .filter((s) => /^gantry\([A-D]\):/.test(s));
    assert.equal(merged.length, 2, merged.join(" | "));
  });
});
