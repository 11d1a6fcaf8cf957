import type { AgentAdapter } from "../agents/adapter.js";
import { AgentRegistry } from "../agents/registry.js";
import { InputError } from "../config/input-error.js";
import type { Config } from "../config/schema.js";
import { loadPlugins } from "../plugins/loader.js";
import { registerPluginAgents } from "../plugins/registry.js";

/** An agent and the tier whose model it runs. */
export interface TieredAgent {
  agent: AgentAdapter;
  tier: string;
}

export async function agentRegistry(config: Config, root: string): Promise<AgentRegistry> {
  const registry = new AgentRegistry();
  registerPluginAgents(registry, await loadPlugins(config, root));
  return registry;
}

export function createAgent(
  registry: AgentRegistry,
  config: Config,
  name: string,
  key: string,
): AgentAdapter {
  if (!registry.names().includes(name)) {
    throw new InputError(
      ".gantry/config.json",
      key,
      `unknown agent "${name}"; expected one of ${registry.names().join(", ")}`,
      "GANTRY_E_CONFIG",
    );
  }
  return registry.create(name, config);
}

/** The critic: `plan.criticAgent` (default agent.default) at `plan.criticTier` (default the top tier). */
export function criticAgent(registry: AgentRegistry, config: Config, top: string): TieredAgent {
  const tier = config.plan.criticTier ?? top;
  if (!config.routing.tiers.includes(tier)) {
    throw new InputError(
      ".gantry/config.json",
      "plan.criticTier",
      `"${tier}" is not one of routing.tiers (${config.routing.tiers.join(", ")})`,
      "GANTRY_E_CONFIG",
    );
  }
  const name = config.plan.criticAgent ?? config.agent.default;
  return {
    agent: createAgent(
      registry,
      config,
      name,
      config.plan.criticAgent ? "plan.criticAgent" : "agent.default",
    ),
    tier,
  };
}
