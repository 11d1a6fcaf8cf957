import type { Config } from "../config/schema.js";
import type { AgentAdapter } from "./adapter.js";
import { createCommandAdapter } from "./command.js";

export type AdapterFactory = (config: Config) => AgentAdapter;

/** Adapters by name. The named CLIs (claude, codex, ...) and plugin agents register here. */
export class AgentRegistry {
  private readonly factories = new Map<string, AdapterFactory>([["command", createCommandAdapter]]);

  register(name: string, factory: AdapterFactory): void {
    if (this.factories.has(name)) throw new Error(`an agent named "${name}" is already registered`);
    this.factories.set(name, factory);
  }

  names(): string[] {
    return [...this.factories.keys()];
  }

  create(name: string, config: Config): AgentAdapter {
    const factory = this.factories.get(name);
    if (!factory) throw new Error(`unknown agent "${name}"; known agents: ${this.names().join(", ")}`);
    return factory(config);
  }
}
