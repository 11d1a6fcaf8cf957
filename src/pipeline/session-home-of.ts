import type { Config } from "../config/schema.js";
import { declaredStatePaths, type SessionHome, sessionHome } from "../process/session-home.js";

/**
 * The home a run's sessions get (session-home.ts): writable only in the state paths of the agents the run
 * uses (`agent.default` and the review panel's), their defaults and `agent.<name>.writableDirs`.
 */
export function sessionHomeOf(config: Config): () => SessionHome {
  const names = [
    config.agent.default,
    ...config.review.panel.flatMap((reviewer) => ("agent" in reviewer ? [reviewer.agent] : [])),
  ];
  const own = config.agent as unknown as Record<string, { writableDirs?: string[] } | undefined>;
  const extra = names.flatMap((name) => own[name]?.writableDirs ?? []);
  return () => sessionHome(declaredStatePaths(names, extra));
}
