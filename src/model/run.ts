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
