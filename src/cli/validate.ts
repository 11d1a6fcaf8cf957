import { join, relative } from "node:path";
import { CONFIG_PATH, loadConfig } from "../config/loader.js";
import { errorLine } from "../model/errors.js";
import { EXIT } from "../model/exit-codes.js";
import { preflight } from "../pipeline/preflight.js";
import { featurePrdPath, listFeatures, projectRoot } from "./project.js";

/**
 * `gantry validate`: the pre-flight a run makes, without running: the config, every feature's PRD, the
 * agent, reporters, plugins, git, the sandbox and the quality commands. Every problem is one line on
 * standard error and the exit code is 2; warnings (keys that look misspelt) are errors with --strict.
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
  });
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
