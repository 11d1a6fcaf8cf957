/**
 * The agent CLI for the command adapter, when one is on PATH. Each call reads the prompt from standard
 * input, as the command adapter sends it, and may edit files without asking (nobody is there to answer)
 * but is not given free rein over the shell.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

export interface AgentChoice {
  name: string;
  run: string;
  source: string;
}

const KNOWN: readonly { name: string; run: string }[] = [
  { name: "claude", run: "claude -p --permission-mode acceptEdits" },
  { name: "codex", run: "codex exec --full-auto -" },
];

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first known agent CLI found on `pathVariable` (PATH), in the order of KNOWN. */
export function detectAgent(pathVariable: string | undefined): AgentChoice | undefined {
  const dirs = (pathVariable ?? "").split(delimiter).filter(Boolean);
  for (const agent of KNOWN) {
    const dir = dirs.find((d) => executable(join(d, agent.name)));
    if (dir) return { ...agent, source: `${join(dir, agent.name)} on PATH` };
  }
  return undefined;
}

/** What to tell a user whose PATH has none of them. */
export const AGENT_HELP =
  'set agent.command.run in .gantry/config.json to the command that runs your agent with the prompt on standard input, e.g. "claude -p --permission-mode acceptEdits" or "codex exec --full-auto -"';
