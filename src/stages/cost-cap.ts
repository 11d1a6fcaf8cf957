import type { RunContext } from "./context.js";

/** Why nothing more may be spent for the cost cap (`execution.costLimitUsd`, 0 = none), if it is reached. */
export function costCapReached(run: RunContext): string | undefined {
  const limit = run.config.execution.costLimitUsd;
  if (limit <= 0 || run.cost.usd < limit) return undefined;
  return `cost limit reached: $${run.cost.usd.toFixed(2)} of $${limit.toFixed(2)}`;
}

/** Why no agent or reviewer session may start now: interrupted, a pause was asked for, the cost cap. */
export function sessionNotNow(run: RunContext): string | undefined {
  if (run.signal.aborted) return "interrupted";
  return run.requests.pauseReason ?? costCapReached(run);
}
