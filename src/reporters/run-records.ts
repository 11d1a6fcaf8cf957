/** What the run model (run-model.ts) records of a run for the reporters: its stories, their passes, stages, verdicts and sessions. */
import type { LedgerEntry } from "../model/ledger.js";
import type { StageAction, StageName } from "../model/stage.js";
import type { StoryStatus } from "../model/story.js";
import type { StageVerdict } from "./stage-verdict.js";

export interface StageRecord {
  /** Which pass over the story (1, then one more per pass: a new tier or another try at one) and its tier. */
  pass: number;
  tier?: string;
  stage: StageName;
  verdict: StageVerdict;
  action: StageAction;
  /** On `continue`: the stage that ran next. */
  next?: StageName;
  reason?: string;
  fromStage?: StageName;
  durationMs: number;
  at: string;
}

/** A gate verdict with what the result event that produced it said (failures, findings, duration). */
export interface VerdictRecord {
  entry: LedgerEntry;
  durationMs?: number;
  evidence: string[];
}

export interface StoryRecord {
  id: string;
  title: string;
  status: StoryStatus;
  /** The story's pass number, counted across runs (as the ledger and prompts number passes). */
  attempts: number;
  /** Its pass number when this run took it up: passes in this run are `attempts - firstPassThisRun + 1`. */
  firstPassThisRun?: number;
  /** The tier of the latest pass. */
  tier?: string;
  costUsd: number;
  agentCalls: number;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  /** Why it failed, was skipped or blocked. */
  reason?: string;
  /** The stage running now, while the story runs. */
  stage?: StageName;
  stages: StageRecord[];
  verdicts: VerdictRecord[];
  /** Its agent sessions, in order, with where each one's output was kept (relative to the run directory). */
  sessions: SessionRecord[];
}

export interface SessionRecord {
  role: string;
  tier: string;
  exitCode: number | null;
  outputFile?: string;
}
