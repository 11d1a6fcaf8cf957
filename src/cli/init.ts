/**
 * `gantry init [--dir D] [--force] [--json]`: writes .gantry/config.json with the project's test, lint,
 * typecheck and fix commands detected from its manifests, ignores gantry's run state in .gitignore and
 * creates .gantry/features/. Names a proposed command whose program is not installed, and runs lint and
 * typecheck once on the project as it is, warning when one already fails. Exit 0 whenever the config was written, also when nothing was detected;
 * 2 when a config exists and --force was not given.
 */
import { existsSync, mkdirSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AGENT_HELP, type AgentChoice, detectAgent } from "../config/detect/agent.js";
import { proposedWorktreeSetup } from "../config/detect/editable-install.js";
import { COMMAND_KEYS, type CommandKey, type Detection, detectProject } from "../config/detect/index.js";
import { projectVenv } from "../config/detect/project-venv.js";
import { detectStoryChecks } from "../config/detect/story-checks.js";
import { InputError } from "../config/input-error.js";
import { CONFIG_PATH, parseConfig } from "../config/loader.js";
import type { ConfigInput } from "../config/schema.js";
import { isIgnored } from "../git/ignored.js";
import { sandboxStatusLine } from "../process/sandbox-status.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { ensureGitignored, type GitignoreUpdate } from "../util/gitignore.js";
import { packageFile } from "../util/package-file.js";
import { type BaselineRun, missingPrograms, runBaseline } from "./init-checks.js";
import { FEATURES_DIR, projectRoot } from "./project.js";

export interface InitOptions {
  dir?: string;
  force?: boolean;
  json?: boolean;
}

/** Where the command writes and what it reads PATH from; the process's own unless a test passes others. */
export interface InitIo {
  stdout?: { write(chunk: string): unknown };
  env?: NodeJS.ProcessEnv;
}

export const GITIGNORE_ENTRIES = [".gantry/runs/", ".gantry/lock"] as const;

/** gantry's config schema, as `$schema` reaches it from .gantry/config.json (relative to that file). */
export function schemaReference(root: string): string {
  const schema = fileURLToPath(packageFile("schemas/config.schema.json"));
  const rel = relative(join(root, ".gantry"), schema);
  return isAbsolute(rel) ? pathToFileURL(schema).href : rel.split(sep).join("/");
}

export function buildConfig(root: string, detection: Detection, agent: AgentChoice | undefined): ConfigInput {
  const commands: Record<string, string> = {};
  for (const key of COMMAND_KEYS) {
    const found = detection.commands[key];
    if (found) commands[key] = found.command;
  }
  for (const [key, found] of Object.entries(detectStoryChecks(root))) commands[key] = found.command;
  const worktreeSetup = proposedWorktreeSetup(root);
  return {
    $schema: schemaReference(root),
    // A named CLI gets its built-in adapter: its own call and permission flags, the model per tier, the cost.
    agent: { default: agent ? agent.name : "command" },
    quality: { commands },
    // `--parallel`: a story worktree needs its own install of an editable project (docs/parallel.md).
    ...(worktreeSetup ? { execution: { worktreeSetup } } : {}),
  };
}

export async function initCommand(options: InitOptions, io: InitIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const root = projectRoot(options.dir);
  const configPath = join(root, CONFIG_PATH);
  const display = (path: string) => relative(process.cwd(), path) || path;
  const existed = existsSync(configPath);
  if (existed && !options.force) {
    throw new InputError(
      display(configPath),
      "",
      "already exists; pass --force to overwrite it",
      "GANTRY_E_EXISTS",
    );
  }

  const detection = detectProject(root);
  const agent = detectAgent((io.env ?? process.env).PATH);
  // A new config leaves agent.sandbox at its default, "auto".
  const sandbox = await sandboxStatusLine("auto", io.env ?? process.env);
  const config = buildConfig(root, detection, agent);
  parseConfig(display(configPath), config);

  const featuresCreated = !existsSync(join(root, FEATURES_DIR));
  mkdirSync(join(root, FEATURES_DIR), { recursive: true });
  writeJsonAtomic(configPath, config);
  // The project's virtualenv is no content: git would see it, and a worktree's would fail worktreeSetup.
  const venv = projectVenv(root);
  const venvEntry = venv && !(await isIgnored(root, `${venv.dir}/`)) ? [`${venv.dir}/`] : [];
  const gitignore = ensureGitignored(root, [...GITIGNORE_ENTRIES, ...venvEntry], ".gantry");
  const env = io.env ?? process.env;
  const commands = (config.quality?.commands ?? {}) as Record<string, string>;
  const looked = await Promise.all(
    Object.entries(commands).map(async ([key, command]) => ({
      key,
      command,
      programs: await missingPrograms(command, root, env),
    })),
  );
  const missing = looked.filter((m) => m.programs.length > 0);
  const baseline = await runBaseline(root, commands, env, new Set(missing.map((m) => m.key as CommandKey)));

  if (options.json) {
    const result = {
      config: display(configPath),
      overwritten: existed,
      written: config,
      primary: detection.primary ?? null,
      stacks: detection.stacks,
      commands: detection.commands,
      missing: detection.missing,
      missingPrograms: missing,
      baseline,
      notes: detection.notes,
      agent: agent ?? null,
      sandbox,
      gitignore: { path: display(join(root, ".gitignore")), ...gitignore },
      featuresDir: display(join(root, FEATURES_DIR)),
    };
    stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  stdout.write(
    report({
      root,
      detection,
      agent,
      sandbox,
      gitignore,
      existed,
      featuresCreated,
      display: display(configPath),
      missing,
      baseline,
      worktreeSetup: config.execution?.worktreeSetup,
    }),
  );
  return 0;
}

function report(r: {
  root: string;
  detection: Detection;
  agent: AgentChoice | undefined;
  sandbox: string;
  gitignore: GitignoreUpdate;
  existed: boolean;
  featuresCreated: boolean;
  display: string;
  missing: { key: string; command: string; programs: string[] }[];
  baseline: BaselineRun[];
  worktreeSetup: string | undefined;
}): string {
  const { detection, agent, gitignore } = r;
  const lines = [`${r.existed ? "overwrote" : "wrote"} ${r.display}`];
  if (detection.stacks.length === 0) {
    lines.push(
      "nothing detected: no package.json, pyproject.toml, setup.cfg, setup.py, Pipfile, requirements*.txt, " +
        "pytest.ini, go.mod or Cargo.toml at the project root; set quality.commands by hand",
    );
  } else {
    const stacks = detection.stacks.map((s) => `${s.stack} (${s.manifest})`).join(", ");
    lines.push(`detected: ${stacks}`);
  }
  for (const key of COMMAND_KEYS) {
    const found = detection.commands[key];
    lines.push(found ? `  ${key}: ${found.command} (${found.source})` : `  no ${key} command found`);
  }
  for (const [key, found] of Object.entries(detectStoryChecks(r.root))) {
    lines.push(`  ${key}: ${found.command} (${found.source}; story-check between stories)`);
  }
  if (r.worktreeSetup) {
    lines.push(
      `  execution.worktreeSetup: ${r.worktreeSetup} (--parallel: each story worktree gets its own virtualenv and install; docs/parallel.md)`,
    );
  }
  const notes = [
    ...detection.stacks.flatMap((s) => s.notes.map((n) => `${s.stack}: ${n}`)),
    ...detection.notes,
  ];
  for (const note of notes) lines.push(`  note: ${note}`);
  for (const m of r.missing) {
    lines.push(
      `warning: quality.commands.${m.key} needs ${m.programs.join(", ")}, not installed here: install it or change the command`,
    );
  }
  lines.push(...baselineLines(r.baseline));
  lines.push(
    agent
      ? `agent: ${agent.name}, the built-in adapter (${agent.source}); its call and permission flags are in docs/agents.md`
      : `agent: no agent CLI found on PATH; ${AGENT_HELP}`,
  );
  lines.push(r.sandbox);
  if (gitignore.added.length > 0) {
    lines.push(`${gitignore.created ? "created" : "updated"} .gitignore: ${gitignore.added.join(", ")}`);
  } else {
    lines.push(".gitignore already ignores .gantry/runs/ and .gantry/lock");
  }
  if (gitignore.ignoresAll) {
    lines.push(
      "warning: .gitignore ignores all of .gantry/; config.json and features/ are meant to be committed",
    );
  }
  if (r.featuresCreated) lines.push(`created ${FEATURES_DIR}/`);
  lines.push(
    `next: write ${FEATURES_DIR}/<feature>/prd.json (docs/prd.md), check with gantry validate, then gantry run -f <feature>`,
  );
  return `${lines.join("\n")}\n`;
}

/** Each baseline check's outcome; one that already fails is a warning with what it printed. */
function baselineLines(runs: readonly BaselineRun[]): string[] {
  return runs.map((run) => {
    const where = run.sandboxed ? " (in the judging sandbox)" : "";
    if (run.passed) return `  ${run.key} passes on the project as it is${where}`;
    const why = run.timedOut ? "timed out" : `exit code ${run.exitCode}`;
    const printed = run.head.length ? `; it printed:\n${run.head.map((l) => `    ${l}`).join("\n")}` : "";
    return (
      `warning: ${run.key} already fails on the project as it is${where} (${run.command}: ${why}), before any story: ` +
      `every story would fail review and be blamed for it; fix it or change quality.commands.${run.key}${printed}`
    );
  });
}
