import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { EMPTY_TREE, UNBORN } from "../git/judge.js";
import { withDependenciesWritable } from "../process/dependency-folders.js";
import { type ExecResult, execCommand } from "../process/executor.js";
import { testEnvironment } from "./env.js";
import type { Workspace } from "./workspace.js";

/** Files whose change means the project's dependencies change: manifests and lockfiles by ecosystem. */
export const DEPENDENCY_MANIFESTS: ReadonlySet<string> = new Set([
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "bun.lock",
  "pyproject.toml",
  "poetry.lock",
  "uv.lock",
  "Pipfile",
  "Pipfile.lock",
  "requirements.txt",
  "requirements-dev.txt",
  "go.mod",
  "go.sum",
  "Cargo.toml",
  "Cargo.lock",
]);

/** By project root: the manifests' content the last install ran for, so one change installs once. */
const installedFor = new Map<string, string>();

/**
 * Runs `quality.commands.install` when the work not yet committed (`tree` against HEAD) changes a
 * manifest or lockfile whose content was not installed yet in this run: under the session's sandbox with
 * the dependency folders writable and the network, since sessions cannot write those folders themselves.
 * Undefined when there was nothing to install.
 */
export async function installWhenManifestsChanged(
  run: Workspace,
  tree: string,
): Promise<ExecResult | undefined> {
  const command = run.config.quality.commands.install;
  if (!command) return undefined;
  const head = await run.git.head();
  const changed = (await run.git.changedFiles(head === UNBORN ? EMPTY_TREE : head, tree)).filter((path) =>
    DEPENDENCY_MANIFESTS.has(basename(path)),
  );
  if (changed.length === 0) return undefined;
  const print = fingerprint(run.root, changed);
  if (installedFor.get(run.root) === print) return undefined;
  const wrapper = run.sandbox && withDependenciesWritable(run.sandbox, run.root);
  const result = await execCommand({
    command,
    cwd: run.root,
    timeoutMs: run.config.quality.timeoutSeconds * 1000,
    signal: run.signal,
    env: testEnvironment(process.env, run.config.quality.stripEnv),
    ...(wrapper ? { wrapper } : {}),
  });
  if (result.exitCode === 0) installedFor.set(run.root, print);
  return result;
}

function fingerprint(root: string, paths: string[]): string {
  const hash = createHash("sha256");
  for (const path of paths) {
    const file = join(root, path);
    hash.update(`${path}\0${existsSync(file) ? readFileSync(file).toString("base64") : "-"}\0`);
  }
  return hash.digest("hex");
}
