import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execCommand } from "./executor.js";
import { sweepCopies } from "./judging-copy.js";
import { type JudgingPrograms, judgingWrapper } from "./judging-sandbox.js";
import { trustedProgram } from "./system-program.js";

export type JudgingSupport =
  /** `overlayReason`: why the overlay layer does not work here, when the copy is used instead. */
  { works: true; programs: JudgingPrograms; overlayReason?: string } | { works: false; reason: string };

/**
 * Test hook: `copy` skips the overlay trial, so the scratch-copy layer is tried (and used) where overlayfs
 * works too (its tests, and measuring what the copy costs). Any other value is ignored.
 */
export const FORCE_LAYER_VARIABLE = "GANTRY_TEST_JUDGING_LAYER";

const TRIAL_TIMEOUT_MS = 10_000;
const asked = new Map<string, Promise<JudgingSupport>>();

/**
 * Whether judging commands can run in their sandbox here, and over which layer: a trial run over an
 * empty folder, once per bwrap, first with the overlay (a user namespace that may mount overlayfs and
 * tmpfs, setpriv to drop the capabilities after), then with a scratch copy (bwrap alone). Removes the
 * copies gantry processes that are gone left behind.
 */
export function judgingSupport(bwrap: string, env: NodeJS.ProcessEnv = process.env): Promise<JudgingSupport> {
  const key = `${bwrap}\0${env[FORCE_LAYER_VARIABLE] ?? ""}`;
  let answer = asked.get(key);
  if (!answer) {
    answer = decide(bwrap, env);
    asked.set(key, answer);
  }
  return answer;
}

async function decide(bwrap: string, env: NodeJS.ProcessEnv): Promise<JudgingSupport> {
  sweepCopies(env);
  let overlayReason = "skipped (test hook)";
  const setpriv = trustedProgram("setpriv", env);
  if (env[FORCE_LAYER_VARIABLE] !== "copy") {
    const overlay = setpriv
      ? await trial({ bwrap, layer: "overlay", setpriv }, env)
      : "setpriv (util-linux) not found";
    if (overlay === undefined && setpriv)
      return { works: true, programs: { bwrap, layer: "overlay", setpriv } };
    overlayReason = overlay ?? overlayReason;
  }
  const programs: JudgingPrograms = { bwrap, layer: "copy", ...(setpriv ? { setpriv } : {}) };
  const copy = await trial(programs, env);
  if (copy === undefined) return { works: true, programs, overlayReason };
  return { works: false, reason: `overlay: ${overlayReason}; scratch copy: ${copy}` };
}

/** Runs a command that writes into an empty tree under `programs`; undefined when it works and left nothing. */
async function trial(programs: JudgingPrograms, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const tree = mkdtempSync(join(tmpdir(), "gantry-judge-trial-"));
  try {
    const result = await execCommand({
      command: "echo layer > written && test -s written",
      cwd: tree,
      wrapper: judgingWrapper({ programs, repository: tree }, tree, env),
      timeoutMs: TRIAL_TIMEOUT_MS,
      killGraceMs: 0,
      tailBytes: 4096,
    });
    if (result.exitCode === 0)
      return existsSync(join(tree, "written")) ? "a trial run's write reached the tree" : undefined;
    // util-linux's mount ends with a line pointing at dmesg: the line before it says what failed.
    const lines = result.output.split("\n").map((line) => line.trim());
    const said = lines.filter((line) => line && !line.startsWith("dmesg(1)")).pop();
    return `a trial run failed${said ? `: ${said}` : ` (${result.exitCode ?? result.signal})`}`;
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}
