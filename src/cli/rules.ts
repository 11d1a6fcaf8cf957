import { EXIT } from "../model/exit-codes.js";
import { loadRules, RULES_FILE } from "../plan/rules.js";
import { projectRoot } from "./project.js";

/** `gantry rules [--json]`: the project's rules from .gantry/rules.md, the ones `gantry plan`'s critic cites. */
export async function rulesCommand(options: { dir?: string; json?: boolean }): Promise<number> {
  const rules = loadRules(projectRoot(options.dir));
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ file: RULES_FILE, exists: rules !== undefined, rules: rules ?? [] })}\n`,
    );
    return EXIT.ok;
  }
  if (rules === undefined) {
    process.stdout.write(
      `no ${RULES_FILE}; write one to give gantry plan's critic rules (docs/planning.md)\n`,
    );
    return EXIT.ok;
  }
  for (const rule of rules)
    process.stdout.write(`${rule.id.padEnd(8)} ${rule.status.padEnd(9)} ${rule.text}\n`);
  const binding = rules.filter((r) => r.status === "binding").length;
  process.stdout.write(`${rules.length} rule(s) in ${RULES_FILE}, ${binding} binding\n`);
  return EXIT.ok;
}
