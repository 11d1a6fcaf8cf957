import type { AgentAdapter } from "../agents/adapter.js";
import type { MarkerReading } from "../agents/completion-marker.js";
import type { EventBus } from "../bus/event-bus.js";
import type { Config } from "../config/schema.js";
import type { GitRepo } from "../git/git-repo.js";
import type { VerdictBook } from "../ledger/book.js";
import type { CostBasis } from "../model/agent.js";
import type { InteractionAction } from "../model/interaction.js";
import type { Judged } from "../model/ledger.js";
import type { DecidedFinding, ReviewResult } from "../model/review.js";
import type { RunControl } from "../model/run-control.js";
import type { VerifyResult } from "../model/verify.js";
import type { PluginSet } from "../plugins/types.js";
import type { Story } from "../prd/story.js";
import type { StoryStore } from "../prd/story-store.js";
import type { JudgingSandbox } from "../process/judging-sandbox.js";
import type { SessionHome } from "../process/session-home.js";
import type { RunState } from "../runs/run-state.js";
import type { Logger } from "../util/logger.js";
import type { Redactor } from "../util/redact.js";
import type { TestIntegrityResult } from "../verification/strategies/test-integrity.js";
import type { PassRoute } from "./route.js";

export interface CostTotals {
  usd: number;
  sessions: number;
  /** Sessions by how their cost is known. */
  byBasis: Record<CostBasis, number>;
}

/** What subscribers asked of the run through RunControl, read by the run at its boundaries. */
export interface RunRequests {
  vetoes: Map<string, string>;
  pauseReason?: string;
  /** Interaction answers not yet acted on; the story executor takes its own at its boundaries. */
  decisions: Decision[];
}

export interface Decision {
  storyId?: string;
  trigger: string;
  action: InteractionAction;
}

/** Everything a run shares with its stages, built once at start-up. */
export interface RunContext {
  runId: string;
  feature: string;
  root: string;
  runDir: string;
  config: Config;
  mandatoryGates: string[];
  bus: EventBus;
  git: GitRepo;
  agent: AgentAdapter;
  stories: StoryStore;
  /** This run's gate verdicts, in memory: what completion decides from. */
  verdicts: VerdictBook;
  logger: Logger;
  control: RunControl;
  signal: AbortSignal;
  cost: CostTotals;
  state: RunState;
  requests: RunRequests;
  plugins: PluginSet;
  /** Secret values (from the environment) taken out of everything gantry records or hands on. */
  redact: Redactor;
  /** bwrap's command line that agent sessions and code-changing fixers run under, when `agent.sandbox` has one. */
  sandbox?: readonly string[];
  /** The sandbox judging commands run under (judging-sandbox.ts), when the run has one. */
  judging?: JudgingSandbox;
  /** The home sessions get under the sandbox (the real one read-only), when the run has one. */
  sessionHome?: SessionHome;
  /** `--parallel`: this is a story worktree's, whose passed story is merged back (and judged again) after. */
  mergesBack?: boolean;
}

/** One pass of one story through the stages, at one tier. */
export interface StoryContext {
  run: RunContext;
  story: Story;
  /** The run's logger, every line carrying this story's id. */
  logger: Logger;
  tier: string;
  /** 1-based pass number across tiers (the story's attempts). */
  pass: number;
  /** This pass's routing, decided once as the pass begins; the routing stage records it. */
  route?: PassRoute;
  /** HEAD when the story started; its changes are measured from here. */
  baseSha: string;
  /** The latest failing test result rectify works from (scoped or regression), cleared when verify passes. */
  verify?: VerifyResult;
  /** The latest passing scoped verify of this story, with the tree it judged. */
  passedVerify?: VerifyResult & { judged: Judged };
  /** The test-integrity verdict verify judged last in this pass, with its tree (none when verify failed). */
  integrity?: TestIntegrityResult & { judged: Judged };
  review?: ReviewResult;
  /** The review panel's findings that do not block (lowered blockers, important ones): rectify and autofix get them. */
  reviewNotes?: DecidedFinding[];
  /** failCount after each verify in this pass, for rectify's early stop. */
  failureHistory: number[];
  /** The failing result the last rectify attempt worked from, so its early stop can name both statuses. */
  rectifiedFrom?: Pick<VerifyResult, "status" | "failCount" | "reason" | "gate">;
  /** Ignored source files the story's agent sessions created (top-relative): a commit would not carry them. */
  ignoredBySessions?: Set<string>;
  /** test-integrity findings a person allowed (`findingKey`s), for the rest of the story. */
  integrityAllowed?: Set<string>;
  /** Retries this pass may still take before MAX_STAGE_RETRIES ends it; kept by the runner. */
  retriesLeft?: number;
  rectifyAttempts: number;
  autofixAttempts: number;
  /** The pass that resumes work an earlier run left in the tree (the story was paused or in progress). */
  resumedPass?: number;
  /** The completion marker of this story's last finished agent session. */
  marker?: MarkerReading;
  /** Across passes. */
  agentCalls: number;
  costUsd: number;
}
