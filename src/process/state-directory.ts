import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** `$XDG_STATE_HOME`, or `~/.local/state` when it is unset or relative (as the XDG spec says). */
function stateHome(env: NodeJS.ProcessEnv): string {
  const state = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : undefined;
  return state ?? join(env.HOME || homedir(), ".local", "state");
}

/** gantry's own state, the ledger's keys among it (src/ledger/key.ts keeps them under `<this>/keys`). */
export function gantryStateDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateHome(env), "gantry");
}

/**
 * Where gantry checks out trees to judge them apart from the story's (test-strength, test-integrity's
 * base counts, the story check, reviewers' tests): hidden from every session, so no session of a
 * `--parallel` run writes into a checkout another worker is judging. Beside the state directory, not in
 * it: judging commands run in these checkouts, and the judging sandbox hides the state directory.
 */
export function gantryScratchDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateHome(env), "gantry-scratch");
}
