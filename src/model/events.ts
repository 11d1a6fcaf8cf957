import type { AgentRole, CostBasis } from "./agent.js";
import type { Judged, LedgerEntry, Verdict } from "./ledger.js";
import type { MarkerOrNone } from "./markers.js";
import type { ReadinessGap } from "./readiness.js";
import type { DecidedFinding, ReviewerRecord, ReviewResult } from "./review.js";
import type { RunErrorCode, RunSummary, StoryMetrics } from "./run.js";
import type { StageName, StageResult } from "./stage.js";
import type { StorySummary } from "./story.js";
import type { TestFailure, VerifyResult, VerifyStatus, VerifyStrategy } from "./verify.js";

/** One piece of evidence of the test-integrity gate: what the story did to the tests, and where. */
export interface TestIntegrityFinding {
  kind:
    | "test-deleted"
    | "test-renamed-away"
    | "marker-added"
    | "fewer-tests"
    | "test-config-changed"
    | "check-config-changed"
    | "check-script-changed"
    | "runner-aware-code"
    | "suppression-added";
  file: string;
  line?: number;
  evidence: string;
}

/** One of the between-stories checks, as it ran. */
export interface StoryCheckRun {
  name: "build" | "smoke" | "demo";
  command: string;
  success: boolean;
  exitCode: number | null;
  timedOut: boolean;
  /** The output pattern it had to print, when it has one; `matched` says whether it did. */
  expect?: string;
  matched?: boolean;
  durationMs: number;
  /** The end of its output. */
  output: string;
}

interface AgentCall {
  storyId: string;
  role: AgentRole;
  agent: string;
  model: string;
  tier: string;
}

/**
 * The closed event map. Every payload also carries `runId` and `at`, added by the bus.
 * Result events (`verify:result`, `review:result`) carry the `judged` tree so the ledger
 * can bind a verdict to the content it judged without asking git itself.
 */
export interface EventPayloads {
  "run:start": { feature: string; totalStories: number };
  "run:complete": { summary: RunSummary; exitCode: number };
  "run:error": { error: { message: string; code: RunErrorCode } };
  "run:pause": { reason: string };
  "run:resume": { reason: string };
  "run:cost-check": { costUsd: number; limitUsd: number };
  "story:start": {
    story: StorySummary;
    tier: string;
    /** The routing decision the starting tier came from; the story executor always sets it. */
    routing?: { complexity: string; testStrategy: string; reason: string };
  };
  /**
   * The story passed. `inWorktree` (`--parallel`): it passed in its worktree and is merged next; it is
   * passed once `story:merge` says `merged`.
   */
  "story:complete": { story: StorySummary; metrics: StoryMetrics; inWorktree?: boolean };
  "story:fail": { story: StorySummary; reason: string };
  "story:skip": { story: StorySummary; reason: string };
  /**
   * `--parallel`: a story that passed in its worktree, merged back into the feature branch. `merged` after
   * the merged tree was judged again and committed (`sha`, `tree`); `conflict` when git could not merge it
   * (`files`); `failed` when the merged tree did not pass the story's gates (`reason`).
   */
  "story:merge": {
    storyId: string;
    outcome: "merged" | "conflict" | "failed";
    sha?: string;
    tree?: string;
    files?: string[];
    reason?: string;
    /**
     * For one not merged, what follows: the `merge-conflict` trigger asks (`ask`), or, with it off, its
     * fallback runs the story again on the new tip (`retry`), or the story fails (`fail`: it already ran again).
     */
    next?: "ask" | "retry" | "fail";
  };
  /**
   * `--parallel`: `execution.worktreeSetup` in a story's new worktree, before its first session: `start`, then
   * `end` with whether it worked (a failing one fails the story with its output as the reason).
   */
  "worktree:setup": {
    storyId: string;
    command: string;
    phase: "start" | "end";
    ok?: boolean;
    durationMs?: number;
  };
  "stage:enter": { storyId: string; stage: StageName };
  "stage:exit": {
    storyId: string;
    stage: StageName;
    result: StageResult;
    durationMs: number;
    /** This exit ends the pass at MAX_STAGE_RETRIES: a retry past the limit, or a stage with none left. */
    retryLimit?: { max: number };
    /** On `continue`: the stage that runs next (absent after the last one). */
    next?: StageName;
  };
  "agent:start": AgentCall;
  "agent:end": AgentCall & {
    /** What the session printed (bounded, redacted), relative to the run directory. */
    outputFile?: string;
    exitCode: number | null;
    durationMs: number;
    costUsd: number;
    costBasis: CostBasis;
    /** Input and output tokens, when the agent's CLI reported them. */
    tokens?: { input: number; output: number };
    /** The completion marker the session's final output ended with (model/markers.ts), or `none`. */
    marker?: MarkerOrNone;
  };
  "verify:start": { storyId: string; strategy: VerifyStrategy };
  "verify:result": VerifyResult & { judged: Judged; attempt: number };
  "rectify:attempt": { storyId: string; attempt: number; maxAttempts: number; failures: TestFailure[] };
  "review:start": { storyId: string; checks: string[] };
  "review:result": ReviewResult & { judged: Judged; attempt: number };
  /** The test-strength gate: each test file the story added or changed, run without its production change. */
  "test-strength:result": {
    storyId: string;
    verdict: Verdict;
    files: {
      file: string;
      outcome: "exercises-change" | "passes-without-change" | "cannot-load" | "unverified";
      /** The file's run without the production change; NOT_RUN when it was not run (limit, time, interruption). */
      status: VerifyStatus | "NOT_RUN";
      reason?: string;
    }[];
    judged: Judged;
    attempt: number;
    reason?: string;
  };
  /**
   * After an agent session: what it changed that is not its to change (git's config, hooks, refs, HEAD,
   * index flags; gantry's own files). Emitted only when something changed; the pass then fails.
   */
  "tamper:result": {
    storyId: string;
    role: AgentRole;
    verdict: Verdict;
    changes: { what: string; restored: boolean }[];
    judged: Judged;
    attempt: number;
  };
  /** The test-integrity gate: the story's tests and test configuration against its base commit. */
  "test-integrity:result": {
    storyId: string;
    verdict: Verdict;
    /** What fails the gate. */
    findings: TestIntegrityFinding[];
    /** Findings an acceptance criterion allows, with that criterion. */
    allowed: (TestIntegrityFinding & { allowedBy: string })[];
    judged: Judged;
    attempt: number;
    reason?: string;
  };
  /**
   * The readiness gate, before a story's first agent session: its gaps, the codes a person accepted, and
   * `ask` when the open blockers are a gap set nobody was asked about yet (the story-readiness trigger asks).
   */
  "readiness:result": {
    storyId: string;
    verdict: Verdict;
    gaps: ReadinessGap[];
    accepted: string[];
    /** The open blockers' gap set (sorted gap keys); empty on a pass. */
    gapSet: string[];
    ask?: boolean;
    /** Research findings gantry verified and counted in the score. */
    findings?: number;
    /** Set when this is the story's earlier pass carried onto the tree it commits (the tree first judged). */
    carriedFrom?: string;
    judged: Judged;
    attempt: number;
  };
  /** The review panel's decision (docs/review.md): the blockers that stand with their basis, the lowered ones. */
  "review-decision:result": {
    storyId: string;
    verdict: Verdict;
    reason: string;
    blockers: DecidedFinding[];
    lowered: DecidedFinding[];
    others: DecidedFinding[];
    reviewers: Omit<ReviewerRecord, "findings">[];
    judged: Judged;
    attempt: number;
  };
  /**
   * The between-stories check (quality.commands build, smoke, demo) on a checkout of one tree: at `entry`
   * the committed tree a story starts from, at `exit` the tree it would commit, at `merge` the tree a
   * `--parallel` merge (or a shard's) would commit to the feature branch.
   */
  "story-check:result": {
    storyId: string;
    phase: "entry" | "exit" | "merge";
    verdict: Verdict;
    checks: StoryCheckRun[];
    judged: Judged;
    attempt: number;
  };
  "autofix:attempt": { storyId: string; fixType: string; command: string };
  "escalation:tier-change": {
    storyId: string;
    from: string;
    to: string;
    reason: string;
    /** With `routing.escalationStart: "base-commit"`: the stash the earlier tier's work was set aside to. */
    setAside?: string;
  };
  "escalation:exhausted": { storyId: string; attempts: number };
  "interaction:request": {
    id: string;
    trigger: string;
    storyId?: string;
    summary: string;
    options: string[];
    timeoutMs: number;
    fallback: string;
  };
  "interaction:response": { id: string; trigger: string; action: string; respondedBy: string };
  "gate:verdict": LedgerEntry;
  /** A control given through `gantry serve` (pause after the current story, skip a story, abort), as the run took it. */
  "run:control": { action: "pause" | "skip" | "abort"; storyId?: string; by: string };
}

export type EventName = keyof EventPayloads;
export interface EventMeta {
  runId: string;
  at: string;
}
export type EventOf<K extends EventName> = EventPayloads[K] & EventMeta;
