import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { CONFIG_PATH, loadConfig } from "../config/loader.js";
import { errorLine } from "../model/errors.js";
import { EXIT } from "../model/exit-codes.js";
import { preflight } from "../pipeline/preflight.js";
import { parseRules, RULES_FILE } from "../plan/rules.js";
import { featurePrdPath, listFeatures, projectRoot } from "./project.js";

/**
 * `gantry validate`: the pre-flight a run makes, without running: the config, every feature's PRD, the
 * agent, reporters, plugins, git (and the working tree: run refuses uncommitted changes), the sandbox and
 * the quality commands. Every problem is one line on standard error and the exit code is 2; warnings (keys
 * that look misspelt) are errors with --strict. The rules file of `gantry plan`'s critic is checked here too
 * (a run does not read it).
 */
export async function validateCommand(options: {
  feature?: string;
  dir?: string;
  json?: boolean;
  strict?: boolean;
}): Promise<number> {
  const root = projectRoot(options.dir);
  const config = loadConfig(root);
  const features = options.feature ? [options.feature] : listFeatures(root);
  const prds = features.map((feature) => ({ feature, ...featurePrdPath(root, feature) }));
  const configPath = join(root, CONFIG_PATH);
  const report = await preflight({
    root,
    config,
    configFile: relative(process.cwd(), configPath) || configPath,
    prds,
    strict: Boolean(options.strict),
    checkTree: true,
  });
  checkRules(root, report);
  const valid = report.problems.length === 0;
  if (options.json) {
    const problems = report.problems.map((p) => ({
      code: p.code,
      file: p.file,
      where: p.where,
      expected: p.expected,
    }));
    const summary = {
      valid,
      features,
      stories: report.stories,
      checks: report.passed,
      warnings: report.warnings,
    };
    process.stdout.write(`${JSON.stringify({ ...summary, problems })}\n`);
    return valid ? EXIT.ok : EXIT.badInput;
  }
  for (const warning of report.warnings) process.stderr.write(`gantry: ${warning}\n`);
  for (const problem of report.problems)
    process.stderr.write(`${errorLine(problem.message, problem.code)}\n`);
  if (!valid) return EXIT.badInput;
  for (const line of report.passed) process.stdout.write(`  ${line}\n`);
  process.stdout.write(`ok: config and ${features.length} feature(s), ${report.stories} stories\n`);
  return EXIT.ok;
}

/** Every problem of .gantry/rules.md, when there is one, added to the pre-flight's report. */
function checkRules(root: string, report: Awaited<ReturnType<typeof preflight>>): void {
  const path = join(root, RULES_FILE);
  if (!existsSync(path)) return;
  const { rules, errors } = parseRules(readFileSync(path, "utf8"), RULES_FILE);
  report.problems.push(...errors);
  const binding = rules.filter((r) => r.status === "binding").length;
  if (errors.length === 0)
    report.passed.push(`rules: ${RULES_FILE} (${rules.length} rules, ${binding} binding)`);
}
