import type { RunContext } from "../pipeline/run-context.js";
import { testEnvironment } from "../verification/env.js";
import { execCommand } from "../verification/executor.js";

const FIXERS = ["lintFix", "formatFix"] as const;

/** Runs the configured mechanical fixers (lintFix, then formatFix); returns which ran. */
export async function runMechanicalFixes(run: RunContext, storyId: string): Promise<string[]> {
  const ran: string[] = [];
  for (const fixType of FIXERS) {
    const command = run.config.quality.commands[fixType];
    if (!command) continue;
    run.bus.emit("autofix:attempt", { storyId, fixType, command });
    const outcome = await execCommand({
      command,
      cwd: run.root,
      timeoutMs: run.config.quality.timeoutSeconds * 1000,
      signal: run.signal,
      tailBytes: 64 * 1024,
      env: testEnvironment(process.env, run.config.quality.stripEnv),
    });
    run.logger.info(
      { storyId, fixType, exitCode: outcome.exitCode, durationMs: outcome.durationMs },
      "autofix command",
    );
    ran.push(fixType);
  }
  return ran;
}
