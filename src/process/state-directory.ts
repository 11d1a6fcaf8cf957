import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** gantry's own state, the ledger's keys among it (src/ledger/key.ts keeps them under `<this>/keys`). */
export function gantryStateDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : undefined;
  return join(state ?? join(env.HOME || homedir(), ".local", "state"), "gantry");
}
