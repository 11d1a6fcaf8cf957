/** What the page and the device routes are given of a run: one view, the same for a live and a finished run. */
import type { ReviewDecisionView } from "./review-view.js";

export interface GateView {
  gate: string;
  verdict: string;
  tree: string;
  attempt: number;
}

export interface StoryView {
  id: string;
  title: string;
  status: string;
  tier?: string;
  /** Passes over the story, counted across runs (as the ledger and prompts number them). */
  attempts: number;
  /** This run's first pass over the story, when this run took it up. */
  firstPassThisRun?: number;
  /** Passes this run gave the story: what the page's "passes" column shows. */
  passes?: number;
  stage?: string;
  costUsd: number;
  costBasis: string[];
  gates: GateView[];
  reason?: string;
  /** The review panel's decisions on this story, oldest first, each finding with its basis. */
  reviews?: ReviewDecisionView[];
}

export interface PendingRequest {
  id: string;
  trigger: string;
  storyId?: string;
  summary: string;
  options: string[];
  fallback: string;
  at?: string;
  expiresAt?: string;
  /** The run asks through a channel `gantry serve` can answer (serve or file): buttons, not just a notice. */
  answerable: boolean;
}

export interface RunView {
  runId: string;
  feature?: string;
  status: string;
  live: boolean;
  startedAt?: string;
  endedAt?: string;
  totalStories?: number;
  costUsd: number;
  costBasis: string[];
  currentStory?: string;
  stories: StoryView[];
  /** Verdicts on the whole run (deferred regression, acceptance), not on one story. */
  gates: GateView[];
  /** The feature's plan critique (plan-critique.json) as lines, when it has one. */
  planCritique?: string[];
  pending: PendingRequest[];
  log: string[];
  /** In the JSON the page gets (the run's version when it was made): the event stream's patches name it. */
  version?: number;
}
