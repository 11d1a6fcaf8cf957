export type CostBasis = "exact" | "estimated" | "unknown";
export const AGENT_ROLES = [
  "implement",
  "rectify",
  "autofix",
  "plan",
  "critic",
  "research",
  "review",
] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];
