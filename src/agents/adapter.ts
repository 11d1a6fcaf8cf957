import type { AgentRole, CostBasis } from "../model/agent.js";

export interface AgentRequest {
  role: AgentRole;
  storyId: string;
  /** 1-based count of this story's agent sessions so far, this one included. */
  attempt: number;
  tier: string;
  model: string;
  prompt: string;
  promptFile: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  feature: string;
  runId: string;
  /** Unique to this session; its processes carry it (GANTRY_SESSION_ID) so its leftovers can be found. */
  sessionId: string;
  /**
   * The sandbox this session runs under (bwrap's command line, up to `--`), when the run has one. An
   * adapter that starts a process passes it on as ExecOptions.wrapper (see sessionExecOptions).
   */
  sandbox?: readonly string[];
  /** Where a plan or research session writes its answer (GANTRY_OUTPUT_FILE); outside the tree. */
  outputFile?: string;
}

/** Tokens a session used, as its CLI reported them; cached input counts as input. */
export interface TokenUsage {
  input: number;
  output: number;
}

export interface AgentResult {
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  costUsd: number;
  costBasis: CostBasis;
  /** The tail of what the agent printed. */
  output: string;
  /** Why the session is an agent error, when it is one. */
  error?: string;
  tokens?: TokenUsage;
  /** What the agent said last, when its CLI reports it apart from the rest of its output. */
  finalMessage?: string;
  /** The session failed on a rate limit or quota (HTTP 429, "overloaded", ...): worth retrying later. */
  rateLimited?: boolean;
  /**
   * The session failed on something no retry and no higher tier changes (a rejected key, no login, a refused
   * setup): what failed and what to do. The run pauses on it instead of escalating.
   */
  setupProblem?: string;
}

/** What the pre-flight knows about the machine when it asks an adapter whether its sessions can work. */
export interface ReadinessContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Whether the run's sessions will run inside gantry's sandbox (agent.sandbox and bwrap working). */
  sandboxed: boolean;
  /** Whether gantry runs as root (uid 0). */
  root: boolean;
  /** The models the run may use, one per tier. */
  models: string[];
}

/** One thing the pre-flight found: `broken` stops the run before any session (exit 2). */
export interface ReadinessFinding {
  kind: "ok" | "warning" | "broken";
  text: string;
}

/** One coding agent CLI. Adapters are registered by name; plugins may add more. */
export interface AgentAdapter {
  readonly name: string;
  /** The executable this adapter runs, when it runs one CLI (not a shell command). */
  readonly bin?: string;
  /** Arguments that make `bin` print its version and exit, for the pre-flight check; absent when it has none. */
  readonly versionArgs?: readonly string[];
  /** The model this adapter runs for a tier, from `agent.models.<name>.<tier>`, or its own default. */
  modelFor(tier: string): string;
  /** Checks that answer offline whether sessions can work here (login, root, trust, sandbox, models). */
  readiness?(context: ReadinessContext): Promise<ReadinessFinding[]>;
  run(request: AgentRequest): Promise<AgentResult>;
}
