import type { AgentAdapter } from "../agents/adapter.js";
import type { Config, InteractionAction } from "../config/schema.js";
import type { GitRepo } from "../git/repo.js";
import type { PluginSet } from "../plugins/types.js";
import type { StoryStore } from "../prd/story-store.js";
import type { LedgerReader } from "../subscribers/ledger-reader.js";
import type { Logger } from "../util/logger.js";
import type { Redactor } from "../util/redact.js";
import type { EventBus } from "./event-bus.js";
import type { CostBasis } from "./events.js";
import type { RunControl } from "./run-control.js";
import type { RunState } from "./run-state.js";

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
  ledger: LedgerReader;
  logger: Logger;
  control: RunControl;
  signal: AbortSignal;
  cost: CostTotals;
  state: RunState;
  requests: RunRequests;
  plugins: PluginSet;
  /** Secret values (from the environment) taken out of everything gantry records or hands on. */
  redact: Redactor;
}
