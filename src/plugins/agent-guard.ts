import type { AgentAdapter, AgentResult } from "../agents/adapter.js";
import type { AdapterFactory } from "../agents/registry.js";
import type { CostBasis } from "../model/agent.js";
import { errorText, settleWithin } from "./bounded.js";
import { PluginError, pluginInputError } from "./errors.js";
import type { PluginAgentEntry, PluginOrigin } from "./types.js";
import { describeValue } from "./validate.js";

/** Past the request's own timeout, how long a plugin agent may take to notice it before it is left behind. */
const GRACE_MS = 5_000;
const COST_BASES: CostBasis[] = ["exact", "estimated", "unknown"];

/**
 * Wraps a plugin agent's factory: creating it and each session are checked, and whatever goes wrong is
 * reported with the plugin named. A session that throws or never ends becomes an agent error (so the
 * story escalates as with any failing agent), never a crash or a hang.
 */
export function guardAgent(
  origin: PluginOrigin,
  agent: PluginAgentEntry,
  graceMs = GRACE_MS,
): AdapterFactory {
  const who = `plugin "${origin.name}" agent "${agent.name}"`;
  return (config) => {
    let created: unknown;
    try {
      created = agent.create(config);
    } catch (error) {
      throw pluginInputError(origin, `(${who}) could not be created: ${errorText(error)}`, error);
    }
    const adapter = created as Partial<AgentAdapter> | null;
    const shapeProblem =
      typeof (created as { then?: unknown } | null)?.then === "function"
        ? "a Promise (create must return the adapter itself)"
        : typeof adapter?.run !== "function" || typeof adapter?.modelFor !== "function"
          ? describeValue(created)
          : undefined;
    if (shapeProblem) {
      throw pluginInputError(
        origin,
        `(${who}): create() returned ${shapeProblem}; expected an adapter { name, modelFor(tier), run(request) }`,
      );
    }
    const real = adapter as AgentAdapter;
    return {
      name: typeof real.name === "string" && real.name ? real.name : agent.name,
      modelFor(tier) {
        try {
          const model = real.modelFor(tier);
          return typeof model === "string" && model ? model : tier;
        } catch (error) {
          throw new PluginError(
            origin.name,
            "modelFor",
            `${who}: modelFor("${tier}") threw ${errorText(error)}`,
            {
              cause: error,
            },
          );
        }
      },
      async run(request) {
        const started = performance.now();
        const settled = await settleWithin(() => real.run(request), {
          timeoutMs: request.timeoutMs + graceMs,
          signal: request.signal,
          graceMs,
        });
        const elapsed = Math.round(performance.now() - started);
        switch (settled.kind) {
          case "value":
            return normalize(settled.value, elapsed, who);
          case "threw":
            return failed(elapsed, `${who} threw: ${errorText(settled.error)}`);
          case "timeout":
            return {
              ...failed(elapsed, `${who} did not finish within ${request.timeoutMs / 1000} s`),
              timedOut: true,
            };
          case "aborted":
            return { ...failed(elapsed, `${who} was interrupted`), aborted: true };
        }
      },
    };
  };
}

function failed(durationMs: number, error: string): AgentResult {
  return {
    exitCode: null,
    timedOut: false,
    aborted: false,
    durationMs,
    costUsd: 0,
    costBasis: "unknown",
    output: "",
    error,
  };
}

/** Takes what the plugin reported, with safe values where it left a field out or gave the wrong type. */
function normalize(value: unknown, elapsed: number, who: string): AgentResult {
  if (typeof value !== "object" || value === null) {
    return failed(elapsed, `${who}: run() resolved to ${describeValue(value)}; expected an AgentResult`);
  }
  const r = value as Partial<Record<keyof AgentResult, unknown>>;
  const finite = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n >= 0;
  return {
    exitCode: typeof r.exitCode === "number" ? r.exitCode : null,
    timedOut: r.timedOut === true,
    aborted: r.aborted === true,
    durationMs: finite(r.durationMs) ? (r.durationMs as number) : elapsed,
    costUsd: finite(r.costUsd) ? (r.costUsd as number) : 0,
    costBasis: COST_BASES.includes(r.costBasis as CostBasis) ? (r.costBasis as CostBasis) : "unknown",
    output: typeof r.output === "string" ? r.output : "",
    ...(typeof r.error === "string" && r.error ? { error: r.error } : {}),
  };
}
