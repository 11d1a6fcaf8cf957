import { judgingSupport } from "./judging-support.js";
import { type SandboxMode, sandboxSupport } from "./sandbox.js";

/** One line for `gantry agents` and `gantry init`. */
export async function sandboxStatusLine(
  mode: SandboxMode,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const found = await sandboxSupport(env);
  if (found.works) {
    if (mode === "off") return `sandbox: bubblewrap works here, but agent.sandbox is "off"`;
    const judging = await judgingSupport(found.bwrap as string, env);
    if (!judging.works)
      return `sandbox: bubblewrap works here; judging commands run unsandboxed (${judging.reason})`;
    return judging.overlayReason
      ? `sandbox: bubblewrap works here; judging commands run over a scratch copy (overlayfs: ${judging.overlayReason})`
      : "sandbox: bubblewrap works here";
  }
  const then =
    mode === "bwrap"
      ? `agent.sandbox "bwrap" refuses to run`
      : mode === "auto"
        ? `agent.sandbox "auto" runs sessions unsandboxed`
        : `agent.sandbox is "off"`;
  return `sandbox: not available (${found.reason}): ${then}`;
}
