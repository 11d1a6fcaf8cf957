/** What an interaction may answer; the pipeline acts on it (docs/interaction.md). */
export const INTERACTION_ACTIONS = ["approve", "skip", "retry", "abort", "fix", "continue"] as const;
export type InteractionAction = (typeof INTERACTION_ACTIONS)[number];
