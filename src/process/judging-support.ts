import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execCommand } from "./executor.js";
import { type JudgingPrograms, judgingWrapper } from "./judging-sandbox.js";
import { trustedProgram } from "./system-program.js";

export type JudgingSupport = { works: true; programs: JudgingPrograms } | { works: false; reason: string };

const TRIAL_TIMEOUT_MS = 10_000;
const asked = new Map<string, Promise<JudgingSupport>>();

/**
 * Whether judging commands can run in their sandbox here (a user namespace that may mount overlayfs and
 * tmpfs, setpriv to drop the capabilities after): a trial run of `true` over an empty folder, once per bwrap.
 */
export function judgingSupport(bwrap: string, env: NodeJS.ProcessEnv = process.env): Promise<JudgingSupport> {
  let answer = asked.get(bwrap);
  if (!answer) {
    answer = trial(bwrap, env);
    asked.set(bwrap, answer);
  }
  return answer;
}

async function trial(bwrap: string, env: NodeJS.ProcessEnv): Promise<JudgingSupport> {
  const setpriv = trustedProgram("setpriv", env);
  if (!setpriv) return { works: false, reason: "setpriv (util-linux) not found" };
  const programs = { bwrap, setpriv };
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
    if (result.exitCode === 0) return { works: true, programs };
    const said = result.output.trim().split("\n").pop()?.trim();
    return {
      works: false,
      reason: `a trial run of a judging command failed${said ? `: ${said}` : ` (${result.exitCode ?? result.signal})`}`,
    };
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}
