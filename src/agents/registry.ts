import type { Config } from "../config/schema.js";
import type { AgentAdapter } from "./adapter.js";
import { createAiderAdapter } from "./aider.js";
import { createClaudeAdapter } from "./claude.js";
import { createCodexAdapter } from "./codex.js";
import { createCommandAdapter } from "./command.js";
import { createGeminiAdapter } from "./gemini.js";
import { createOpencodeAdapter } from "./opencode.js";

export type AdapterFactory = (config: Config) => AgentAdapter;

/** Adapters by name: the command adapter, the named CLIs, and whatever plugins register. */
export class AgentRegistry {
  private readonly factories = new Map<string, AdapterFactory>([
    ["command", createCommandAdapter],
    ["claude", createClaudeAdapter],
    ["codex", createCodexAdapter],
    ["gemini", createGeminiAdapter],
    ["aider", createAiderAdapter],
    ["opencode", createOpencodeAdapter],
  ]);

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
