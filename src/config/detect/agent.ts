/**
 * The agent `gantry init` configures: the built-in adapter of the first known agent CLI on PATH
 * (`agent.default: "claude"`, ...). The adapter builds the CLI's non-interactive call itself, with the
 * permission flags docs/agents.md gives for it, passes the model for each tier and reads the cost, so
 * the config holds nothing but its name.
 */
import { findOnPath } from "../../process/find-executable.js";

export interface AgentChoice {
  /** The built-in adapter, the value of `agent.default`. */
  name: string;
  source: string;
}

/** The built-in adapters' CLIs, in the order init prefers them when more than one is on PATH. */
export const KNOWN_AGENT_CLIS: readonly string[] = ["claude", "codex", "gemini", "aider", "opencode"];

/** The first known agent CLI found on `pathVariable` (PATH), in the order of KNOWN_AGENT_CLIS. */
export function detectAgent(pathVariable: string | undefined): AgentChoice | undefined {
  for (const name of KNOWN_AGENT_CLIS) {
    const found = findOnPath(name, pathVariable ?? "");
    if (found) return { name, source: `${found} on PATH` };
  }
  return undefined;
}

/** What to tell a user whose PATH has none of them. */
export const AGENT_HELP = `install one of ${KNOWN_AGENT_CLIS.join(", ")} and set agent.default to its name, or set agent.command.run to a command that runs your agent with the prompt on standard input (docs/agents.md)`;
