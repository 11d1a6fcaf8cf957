import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentSession, git } from "../e2e/harness.js";
import {
  chaosProject,
  killGroup,
  markedProcesses,
  moduleWithTest,
  type ProcInfo,
  Rng,
  reapMarked,
  runDirsOf,
  startGantry,
  story,
} from "./harness.js";
import { checkAfterKill, checkFinal } from "./kill.checks.js";

/**
 * One crash trial: a feature of STORIES stories played by the sh agent (some fail once and need rectify,
 * some need lintFix, some lose an agent session and escalate, some are slow), the built CLI killed with
 * SIGKILL at seeded moments, then `gantry run` again until it finishes (bounded). Returns what happened
 * and every broken invariant; the same seed replays the same trial (up to timing).
 */

export type FaultMode =
  /** SIGKILL to gantry alone after the run's events.jsonl holds k lines (+ jitter): its children live on. */
  | "kill-pid"
  /** SIGKILL to gantry's process group (gantry and its git children, as a closing terminal would). */
  | "kill-group"
  /** The k-th commit's prepare-commit-msg hook kills gantry and refuses: prd.json says passed, no commit. */
  | "before-commit"
  /** The k-th commit's post-commit hook kills gantry: the commit landed, state.json still says committing. */
  | "after-commit";

export const FAULT_MODES: readonly FaultMode[] = ["kill-pid", "kill-group", "before-commit", "after-commit"];

export interface Fault {
  mode: FaultMode;
  /** Events (kill-*) or commits (*-commit) to let through first. */
  after: number;
  jitterMs: number;
}

export interface TrialReport {
  seed: number;
  root: string;
  faults: Fault[];
  /** Faults that actually killed a run (a run may finish before its fault's moment). */
  injected: number;
  runs: { code: number | null; signal: string | null; ms: number; stderr: string }[];
  /** Processes of the trial found alive right after each kill (the detached agent and test groups). */
  orphansAfterKill: ProcInfo[][];
  /** Processes still alive a moment after the trial's last run ended. */
  leftAtEnd: ProcInfo[];
  violations: string[];
}

/** Stories of a sequential trial: 8 in `npm test`, 20 in test:full and test:chaos (GANTRY_CHAOS_STORIES). */
const STORIES = Math.max(2, Number.parseInt(process.env.GANTRY_CHAOS_STORIES ?? "8", 10) || 8);
/** About 27 events a story: kills land anywhere up to the deferred regression. */
const EVENTS_PER_STORY = 27;
const PARALLEL_STORIES = 8;
const MAX_RUNS_AFTER_FAULTS = 4;

type Kind = "good" | "failOnce" | "lintOnce" | "agentErrorOnce" | "slow";

/** The seeded feature: which story plays what, and a few dependencies on earlier stories. */
export function trialPlan(rng: Rng, count = STORIES) {
  const ids = Array.from({ length: count }, (_, i) => `S${String(i + 1).padStart(2, "0")}`);
  const kinds: Record<string, Kind> = {};
  const stories = ids.map((id, i) => {
    kinds[id] = rng.pick<Kind>([
      "good",
      "good",
      "good",
      "failOnce",
      "failOnce",
      "lintOnce",
      "agentErrorOnce",
      "slow",
    ]);
    const deps = i > 0 && rng.chance(0.2) ? [ids[rng.int(0, i - 1)] as string] : [];
    return story(id, deps.length ? { dependencies: deps } : {});
  });
  const plan: Record<string, AgentSession[]> = {};
  for (const id of ids) {
    const name = `m${id.toLowerCase()}`;
    const good = { write: moduleWithTest(name, 2) };
    const sessions: Record<Kind, AgentSession[]> = {
      good: [good],
      failOnce: [{ write: moduleWithTest(name, 3, 2) }, good],
      lintOnce: [{ write: moduleWithTest(name, 2, 2, true) }, good],
      agentErrorOnce: [{ write: moduleWithTest(name, 3, 2), exit: 1 }, good],
      slow: [{ ...good, sleepMs: rng.int(100, 400) }],
    };
    plan[id] = sessions[kinds[id] as Kind];
  }
  return { ids, stories, plan, kinds };
}

export function trialFaults(rng: Rng, modes: readonly FaultMode[] = FAULT_MODES, stories = STORIES): Fault[] {
  const count = rng.chance(0.35) ? 2 : 1;
  return Array.from({ length: count }, () => {
    const mode = rng.pick(modes);
    const commitMode = mode === "before-commit" || mode === "after-commit";
    return {
      mode,
      after: commitMode ? rng.int(1, stories) : rng.int(1, stories * EVENTS_PER_STORY),
      jitterMs: rng.int(0, 120),
    };
  });
}

/** Kills at seeded events of a parallel trial (about 40 events a story there). */
function parallelFaults(rng: Rng): Fault[] {
  return trialFaults(rng, ["kill-pid", "kill-group"]).map((f) => ({
    ...f,
    after: rng.int(1, PARALLEL_STORIES * 40),
  }));
}

/** prepare-commit-msg and post-commit hooks that kill gantry at the commit `.git/chaos-trigger` counts down to. */
function installCommitHooks(root: string): void {
  const hook = (mode: string, exitCode: number) => `#!/bin/sh
t="$(git rev-parse --git-dir)/chaos-trigger"
[ -f "$t" ] || exit 0
read mode left < "$t"
[ "$mode" = "${mode}" ] || exit 0
left=$((left - 1))
if [ "$left" -gt 0 ]; then echo "$mode $left" > "$t"; exit 0; fi
rm -f "$t"
kill -9 "$(cat .gantry/lock)"
exit ${exitCode}
`;
  const dir = join(git(root, "rev-parse", "--absolute-git-dir").trim(), "hooks");
  for (const [name, mode, code] of [
    ["prepare-commit-msg", "before-commit", 1],
    ["post-commit", "after-commit", 0],
  ] as const) {
    writeFileSync(join(dir, name), hook(mode, code));
    chmodSync(join(dir, name), 0o755);
  }
}

function setTrigger(root: string, fault: Fault | undefined): void {
  const path = join(git(root, "rev-parse", "--absolute-git-dir").trim(), "chaos-trigger");
  if (fault && (fault.mode === "before-commit" || fault.mode === "after-commit")) {
    writeFileSync(path, `${fault.mode} ${fault.after}\n`);
  } else if (existsSync(path)) writeFileSync(path, "off 0\n");
}

/** Kills gantry once the newest run's events.jsonl holds `after` lines, plus the jitter. */
async function killAfterEvents(
  root: string,
  pid: number,
  fault: Fault,
  runsBefore: number,
  done: Promise<unknown>,
) {
  let finished = false;
  void done.then(() => {
    finished = true;
  });
  while (!finished) {
    const dir = runDirsOf(root)[runsBefore];
    const events = dir ? join(dir, "events.jsonl") : undefined;
    if (events && existsSync(events)) {
      const lines = readFileSync(events, "utf8").split("\n").length - 1;
      if (lines >= fault.after) {
        await new Promise((r) => setTimeout(r, fault.jitterMs));
        if (fault.mode === "kill-group") killGroup(pid, "SIGKILL");
        else process.kill(pid, "SIGKILL");
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * `parallel`: the trial runs `gantry run --parallel N` (stories in worktrees, merged back one by one); its
 * faults are kills at seeded events (gantry commits without hooks, so the commit-hook faults have no
 * moment there), and the agent's plan and log live outside the repository, where every worktree sees them.
 */
export async function runTrial(seed: number, options: { parallel?: number } = {}): Promise<TrialReport> {
  const rng = new Rng(seed);
  const parallel = options.parallel ?? 1;
  // A parallel trial carries 8 stories: each is merged and judged twice, and kills land among them as densely.
  const { ids, stories, plan } = trialPlan(rng, parallel > 1 ? PARALLEL_STORIES : STORIES);
  // gantry commits with hooks off (core.hooksPath=/dev/null), so a commit-hook fault never fires: every
  // trial's faults are kills at seeded events, or a trial could end with nothing injected.
  const faults = parallel > 1 ? parallelFaults(rng) : trialFaults(rng, ["kill-pid", "kill-group"]);
  const root = chaosProject({ stories, plan });
  installCommitHooks(root);
  const marker = `kill-${seed}-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const env: NodeJS.ProcessEnv = { GANTRY_CHAOS_MARKER: marker };
  const args = ["run", "--feature", "f", ...(parallel > 1 ? ["--parallel", String(parallel)] : [])];
  if (parallel > 1) {
    const home = mkdtempSync(join(tmpdir(), "gantry-chaos-agent-"));
    cpSync(join(root, ".agent-plan"), join(home, ".agent-plan"), { recursive: true });
    env.SCRIPTED_AGENT_HOME = home;
  }
  const report: TrialReport = {
    seed,
    root,
    faults,
    injected: 0,
    runs: [],
    orphansAfterKill: [],
    leftAtEnd: [],
    violations: [],
  };
  const violation = (what: string) => report.violations.push(what);

  let finished = false;
  for (let i = 0; i < faults.length + MAX_RUNS_AFTER_FAULTS && !finished; i++) {
    const fault = faults[i];
    setTrigger(root, fault);
    const runsBefore = runDirsOf(root).length;
    const running = startGantry(root, args, { env, timeoutMs: 120_000 });
    if (fault && (fault.mode === "kill-pid" || fault.mode === "kill-group")) {
      void killAfterEvents(root, running.child.pid as number, fault, runsBefore, running.done);
    }
    const result = await running.done;
    report.runs.push({
      code: result.code,
      signal: result.signal,
      ms: result.ms,
      stderr: result.stderr.trim().slice(-400),
    });
    if (result.signal === "SIGKILL") {
      report.injected += 1;
      report.orphansAfterKill.push(markedProcesses(marker));
      checkAfterKill(root, ids, violation, parallel > 1);
    } else if (result.code === 0) {
      finished = true;
    } else if (result.code !== 1) {
      violation(`run ${i + 1} exited ${result.code}: ${(result.stderr || result.stdout).trim().slice(-600)}`);
    }
  }
  setTrigger(root, undefined);
  if (!finished) violation(`the feature did not finish within ${report.runs.length} runs`);
  checkFinal(root, ids, violation, parallel > 1);
  report.leftAtEnd = await reapMarked(marker, 2_000);
  // A trial that broke nothing leaves nothing behind; a failing one keeps its repository to look at.
  if (report.violations.length === 0) rmSync(root, { recursive: true, force: true });
  return report;
}

export function describeTrial(report: TrialReport): string {
  const faults = report.faults.map((f) => `${f.mode}@${f.after}+${f.jitterMs}ms`).join(", ");
  const runs = report.runs.map((r) => (r.signal ? r.signal : `exit ${r.code}`)).join(" → ");
  const errors = report.runs.map((r, i) => (r.stderr ? `\n  run ${i + 1} stderr: ${r.stderr}` : "")).join("");
  return `seed ${report.seed} (replay: GANTRY_CHAOS_SEED=${report.seed} GANTRY_CHAOS_TRIALS=1) in ${report.root}; faults ${faults}; runs ${runs}${errors}`;
}
