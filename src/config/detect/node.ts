/**
 * Node projects: package.json's scripts and dependencies, and the tools' own config files. The test
 * script is the project's own word on how its suite runs, so `npm test` is the full suite whenever
 * there is a real one; the runner (from the script, else from the dependencies) gives the scoped call.
 */
import { parseJsonText } from "../input-error.js";
import {
  expandScript,
  isPlaceholderTestScript,
  type NodeRunner,
  nodeTestCommand,
  segmentRunner,
  usesWatch,
} from "./node-script.js";
import type { Found, ProjectFiles, StackResult } from "./types.js";

interface PackageJson {
  scripts: Record<string, string>;
  /** Dependency name → the field it is listed in. */
  deps: Map<string, string>;
  fields: Record<string, unknown>;
}

const DEP_FIELDS = ["devDependencies", "dependencies", "peerDependencies", "optionalDependencies"];

function readPackageJson(files: ProjectFiles, text: string): PackageJson {
  const raw = parseJsonText(files.display("package.json"), text);
  const fields =
    raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const scripts: Record<string, string> = {};
  const rawScripts = fields.scripts;
  if (rawScripts && typeof rawScripts === "object") {
    for (const [name, value] of Object.entries(rawScripts))
      if (typeof value === "string") scripts[name] = value;
  }
  const deps = new Map<string, string>();
  for (const field of DEP_FIELDS) {
    const list = fields[field];
    if (!list || typeof list !== "object") continue;
    for (const name of Object.keys(list)) if (!deps.has(name)) deps.set(name, field);
  }
  return { scripts, deps, fields };
}

const RUNNER_LABEL: Record<NodeRunner, string> = {
  vitest: "vitest",
  jest: "jest",
  mocha: "mocha",
  node: "node --test",
};
const FULL: Record<Exclude<NodeRunner, "node">, string> = {
  vitest: "npx vitest run",
  jest: "npx jest",
  mocha: "npx mocha",
};

function detectTests(pkg: PackageJson, result: StackResult): void {
  const script = pkg.scripts.test;
  let usable = false;
  let runner: NodeRunner | undefined;
  let segment: string[] | undefined;
  let runnerSource = "";
  if (script !== undefined && isPlaceholderTestScript(script)) {
    result.notes.push(`scripts.test is npm's placeholder (${JSON.stringify(script)}), not a test command`);
  } else if (script !== undefined) {
    const segments = expandScript(script, pkg.scripts);
    if (usesWatch(segments))
      result.notes.push("scripts.test watches for changes and would never exit; not used");
    else usable = true;
    for (const s of segments) {
      runner = segmentRunner(s);
      if (runner) {
        segment = s;
        runnerSource = `${RUNNER_LABEL[runner]} in scripts.test`;
        break;
      }
    }
  }
  if (!runner) {
    for (const name of ["vitest", "jest", "mocha"] as const) {
      const field = pkg.deps.get(name);
      if (field) {
        runner = name;
        runnerSource = `${name} in ${field}`;
        break;
      }
    }
  }

  const c = result.commands;
  if (usable) {
    const runs = runner ? `, runs ${RUNNER_LABEL[runner]}` : "";
    c.test = { command: "npm test", source: `scripts.test in package.json${runs}` };
  }
  if (runner === "node" && segment) {
    c.test ??= { command: nodeTestCommand(segment), source: runnerSource };
    c.testScoped = { command: nodeTestCommand(segment, "{{files}}"), source: runnerSource };
  } else if (runner && runner !== "node") {
    c.test ??= { command: FULL[runner], source: runnerSource };
    c.testScoped = { command: `${FULL[runner]} {{files}}`, source: runnerSource };
  }
  if (!c.test) result.notes.push("no test runner found (a test script, vitest, jest or mocha)");
  else if (!c.testScoped) result.notes.push("the test script's runner is not one gantry can scope to files");
}

function detectTypecheck(files: ProjectFiles, pkg: PackageJson, result: StackResult): void {
  const field = pkg.deps.get("typescript");
  const tsconfig = files.isFile("tsconfig.json");
  if (field && tsconfig) {
    result.commands.typecheck = {
      command: "npx tsc --noEmit",
      source: `typescript in ${field}, tsconfig.json`,
    };
  } else if (field) {
    result.notes.push("typescript is a dependency but there is no tsconfig.json");
  } else if (tsconfig) {
    result.notes.push("tsconfig.json but typescript is not a dependency");
  }
}

/** Where a tool was found: its dependency, else its config file, else a package.json field. */
function toolSource(
  files: ProjectFiles,
  pkg: PackageJson,
  dep: string,
  configFiles: RegExp,
  field?: string,
): string | undefined {
  const listed = pkg.deps.get(dep);
  if (listed) return `${dep} in ${listed}`;
  const config = files.matching(configFiles)[0];
  if (config) return config;
  if (field && pkg.fields[field] !== undefined) return `${field} in package.json`;
  return undefined;
}

function detectLint(files: ProjectFiles, pkg: PackageJson, result: StackResult): void {
  const biome = toolSource(files, pkg, "@biomejs/biome", /^biome\.jsonc?$/);
  const eslint = toolSource(
    files,
    pkg,
    "eslint",
    /^(eslint\.config\.[cm]?[jt]s|\.eslintrc(\.(js|cjs|json|ya?ml))?)$/,
    "eslintConfig",
  );
  const prettier = toolSource(
    files,
    pkg,
    "prettier",
    /^(\.prettierrc(\.(json5?|ya?ml|toml|[cm]?js|ts))?|prettier\.config\.[cm]?[jt]s)$/,
    "prettier",
  );
  const c = result.commands;
  const set = (key: "lint" | "lintFix" | "formatFix", command: string, source: string): void => {
    c[key] = { command, source } satisfies Found;
  };
  // The project's own lint script is its word on what lint means; the tools below still give the fixers.
  const script = pkg.scripts.lint;
  const ownLint = script !== undefined && !usesWatch(expandScript(script, pkg.scripts));
  const lint = (command: string, source: string) => {
    if (!ownLint) set("lint", command, source);
  };
  if (ownLint) set("lint", "npm run lint", "scripts.lint in package.json");
  if (biome) {
    lint("npx biome check .", biome);
    set("lintFix", "npx biome check --write .", biome);
    set("formatFix", "npx biome format --write .", biome);
    if (eslint) result.notes.push(`eslint also found (${eslint}); biome is used for lint`);
    if (prettier) result.notes.push(`prettier also found (${prettier}); biome is used for formatting`);
    return;
  }
  // biome check above includes its formatter; prettier's check goes with the lint command, so a formatting
  // slip fails review and formatFix has work to do.
  const prettierCheck = prettier ? "npx prettier --check ." : undefined;
  if (eslint) {
    lint(prettierCheck ? `npx eslint . && ${prettierCheck}` : "npx eslint .", eslint);
    set("lintFix", "npx eslint --fix .", eslint);
  } else if (prettier && prettierCheck) lint(prettierCheck, prettier);
  if (prettier) set("formatFix", "npx prettier --write .", prettier);
}

export function detectNode(files: ProjectFiles): StackResult | undefined {
  const text = files.read("package.json");
  if (text === undefined) return undefined;
  const pkg = readPackageJson(files, text);
  const result: StackResult = { stack: "node", manifest: "package.json", commands: {}, notes: [] };
  detectTests(pkg, result);
  detectTypecheck(files, pkg, result);
  detectLint(files, pkg, result);
  return result;
}
