import type { StageName, StageResult } from "./stage.js";

export type StoryStatus = "pending" | "in-progress" | "passed" | "failed" | "skipped" | "blocked" | "paused";

/** How a story travels on the bus: never the whole PRD. */
export interface StorySummary {
  id: string;
  title: string;
  status: StoryStatus;
  attempts: number;
}

export type VerifyStrategy = "scoped" | "regression" | "deferred-regression" | "acceptance";
export type VerifyStatus = "PASS" | "TEST_FAILURE" | "NO_TESTS" | "UNPARSED" | "TIMEOUT" | "BUILD_ERROR";

export interface TestFailure {
  file?: string;
  name: string;
  message: string;
}

export interface VerifyResult {
  storyId: string;
  strategy: VerifyStrategy;
  status: VerifyStatus;
  success: boolean;
  runner: string;
  passCount: number;
  failCount: number;
  skipCount: number;
  totalCount: number;
  failures: TestFailure[];
  command: string;
  exitCode: number | null;
  durationMs: number;
  rawOutputTail: string;
  /** Why the status is what it is, when the counts alone do not say (UNPARSED, NO_TESTS, full-suite fallback). */
  reason?: string;
}

/** The exact content a verdict judged: HEAD and the git tree hash of the working tree. */
export interface Judged {
  sha: string;
  tree: string;
}

export interface ReviewCheck {
  name: string;
  success: boolean;
  exitCode: number | null;
  output: string;
  findings: string[];
}

export interface ReviewResult {
  storyId: string;
  success: boolean;
  checks: ReviewCheck[];
}

export type Verdict = "pass" | "fail" | "not-applicable" | "unverified";

export interface LedgerEntry {
  v: 1;
  runId: string;
  feature: string;
  storyId: string;
  gate: string;
  verdict: Verdict;
  sha: string;
  tree: string;
  at: string;
  attempt: number;
  detail: Record<string, unknown>;
}

export type CostBasis = "exact" | "estimated" | "unknown";
export type AgentRole = "implement" | "rectify" | "autofix";

export interface RunSummary {
  passed: number;
  failed: number;
  skipped: number;
  blocked: number;
  paused: number;
  durationMs: number;
  costUsd: number;
  /** How the total is known: every session exact, some, estimated from prices, or not at all. */
  costBasis: "exact" | "partial" | "estimated" | "unknown";
}

export interface StoryMetrics {
  durationMs: number;
  costUsd: number;
  attempts: number;
  tier: string;
  agentCalls: number;
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
  "run:error": { error: { message: string; code: string } };
  "run:pause": { reason: string };
  "run:resume": { reason: string };
  "run:cost-check": { costUsd: number; limitUsd: number };
  "story:start": {
    story: StorySummary;
    tier: string;
    /** The routing decision the starting tier came from; the story executor always sets it. */
    routing?: { complexity: string; testStrategy: string; reason: string };
  };
  "story:complete": { story: StorySummary; metrics: StoryMetrics };
  "story:fail": { story: StorySummary; reason: string };
  "story:skip": { story: StorySummary; reason: string };
  "stage:enter": { storyId: string; stage: StageName };
  "stage:exit": { storyId: string; stage: StageName; result: StageResult; durationMs: number };
  "agent:start": AgentCall;
  "agent:end": AgentCall & {
    exitCode: number | null;
    durationMs: number;
    costUsd: number;
    costBasis: CostBasis;
    /** Input and output tokens, when the agent's CLI reported them. */
    tokens?: { input: number; output: number };
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
}

export type EventName = keyof EventPayloads;
export interface EventMeta {
  runId: string;
  at: string;
}
export type EventOf<K extends EventName> = EventPayloads[K] & EventMeta;
