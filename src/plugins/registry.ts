import type { AgentRegistry } from "../agents/registry.js";
import type { InputError } from "../config/input-error.js";
import { guardAgent } from "./agent-guard.js";
import { pluginInputError } from "./errors.js";
import type { GantryPlugin, PluginOrigin, PluginSet } from "./types.js";

/** No plugins: what a run without a `plugins` entry (or without the field) uses. */
export const NO_PLUGINS: PluginSet = Object.freeze({
  plugins: [],
  reviewers: [],
  routers: [],
  agents: [],
}) as PluginSet;

/** The run's plugins, or none when the run carries no `plugins` field. */
export function pluginsOf(run: { runId: string; plugins?: PluginSet | undefined }): PluginSet {
  return run.plugins ?? NO_PLUGINS;
}

/** Collects loaded plugins into a PluginSet; a name given twice (plugin, reviewer, router, agent) is an error naming both plugins. */
export class PluginSetBuilder {
  private readonly set: PluginSet = { plugins: [], reviewers: [], routers: [], agents: [] };

  add(origin: PluginOrigin, plugin: GantryPlugin): void {
    const other = this.set.plugins.find((p) => p.name === origin.name);
    if (other) throw duplicate(origin, "a plugin", origin.name, other);
    for (const [kind, list, given] of [
      ["reviewer", this.set.reviewers, plugin.reviewers],
      ["router", this.set.routers, plugin.routers],
      ["agent", this.set.agents, plugin.agents],
    ] as const) {
      for (const item of given ?? []) {
        const taken = list.find((existing) => existing.name === item.name);
        if (taken) throw duplicate(origin, `a ${kind}`, item.name, this.origin(taken.plugin));
      }
    }
    this.set.plugins.push(origin);
    const owner = origin.name;
    for (const r of plugin.reviewers ?? []) {
      this.set.reviewers.push({ plugin: owner, name: r.name, review: (input) => r.review(input) });
    }
    for (const r of plugin.routers ?? []) {
      this.set.routers.push({ plugin: owner, name: r.name, route: (story) => r.route(story) });
    }
    for (const a of plugin.agents ?? []) {
      this.set.agents.push({ plugin: owner, name: a.name, create: (config) => a.create(config) });
    }
  }

  build(): PluginSet {
    return this.set;
  }

  private origin(name: string): PluginOrigin {
    return this.set.plugins.find((p) => p.name === name) as PluginOrigin;
  }
}

function duplicate(origin: PluginOrigin, what: string, name: string, other: PluginOrigin): InputError {
  return pluginInputError(
    origin,
    `(plugin "${origin.name}") gives ${what} named "${name}", already given by plugin "${other.name}" (plugins[${other.index}], ${other.module}); names must be unique`,
  );
}

/**
 * Adds the plugin agents to the registry, each guarded so that a factory or session that throws, a
 * wrong adapter shape, or a session that never ends is reported with the plugin named. A name the
 * registry already has (a built-in agent) is an InputError on the plugin's config entry.
 */
export function registerPluginAgents(registry: AgentRegistry, set: PluginSet): void {
  for (const agent of set.agents) {
    const origin = set.plugins.find((p) => p.name === agent.plugin) ?? {
      name: agent.plugin,
      module: agent.plugin,
      index: -1,
    };
    if (registry.names().includes(agent.name)) {
      throw pluginInputError(
        origin,
        `(plugin "${origin.name}") gives an agent named "${agent.name}", which is already registered; choose another name`,
      );
    }
    registry.register(agent.name, guardAgent(origin, agent));
  }
}
