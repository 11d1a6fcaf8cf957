import { runQualityCommand } from "../verification/quality-command.js";
import type { Workspace } from "../verification/workspace.js";

const FIXERS = ["lintFix", "formatFix"] as const;

/** Runs the configured mechanical fixers (lintFix, then formatFix); returns which ran. */
export async function runMechanicalFixes(run: Workspace, storyId: string): Promise<string[]> {
  const ran: string[] = [];
  for (const fixType of FIXERS) {
    const command = run.config.quality.commands[fixType];
    if (!command) continue;
    run.bus.emit("autofix:attempt", { storyId, fixType, command });
    const outcome = await runQualityCommand(run, command, 64 * 1024, { changesCode: true });
    run.logger.info(
      { storyId, fixType, exitCode: outcome.exitCode, durationMs: outcome.durationMs },
      "autofix command",
    );
    ran.push(fixType);
  }
  return ran;
}
