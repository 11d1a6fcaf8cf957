import { parseJsonText } from "../config/input-error.js";
import { CONFIG_PATH, parseConfig } from "../config/loader.js";
import { type Config, mandatoryGates } from "../config/schema.js";
import { runGit } from "../git/exec.js";

/** The mandatory gates `ledger check` applies, and where they came from (said in its output). */
export interface CommittedGates {
  mandatory: string[];
  /** `HEAD:.gantry/config.json` or `defaults (HEAD has no .gantry/config.json)`. */
  source: string;
}

/**
 * The mandatory gates of the config committed at HEAD, never the working copy's: an agent (or anyone)
 * editing .gantry/config.json in the tree cannot drop a gate from the check. Defaults when HEAD has no
 * committed config or there is no commit yet. A committed config that does not parse is bad input.
 */
export async function committedMandatoryGates(root: string): Promise<CommittedGates> {
  const blob = await committedConfigBlob(root);
  const file = `HEAD:${CONFIG_PATH}`;
  if (blob === undefined) {
    return {
      mandatory: mandatoryGates(parseConfig(file, {})),
      source: `the defaults (HEAD has no ${CONFIG_PATH})`,
    };
  }
  const text = await runGit(root, ["cat-file", "blob", blob]);
  const config: Config = parseConfig(file, parseJsonText(file, text));
  return { mandatory: mandatoryGates(config), source: file };
}

/** The blob id of .gantry/config.json (relative to `root`) in HEAD's tree; undefined when absent or unborn. */
async function committedConfigBlob(root: string): Promise<string | undefined> {
  let listing: string;
  try {
    listing = await runGit(root, ["ls-tree", "HEAD", "--", CONFIG_PATH]);
  } catch (error) {
    const head = await runGit(root, ["rev-parse", "--verify", "--quiet", "HEAD"]).catch(() => "");
    if (head.trim() === "") return undefined;
    throw error;
  }
  return /^\d+ blob ([0-9a-f]+)\t/.exec(listing)?.[1];
}
