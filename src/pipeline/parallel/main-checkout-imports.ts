import { editableInstall } from "../../config/detect/editable-install.js";

/**
 * Why a story worktree's tests would import the main checkout's code rather than the worktree's, or
 * undefined: a virtualenv of the project (or the one activated) holds an editable install naming a folder of
 * the main checkout. The worktree has no virtualenv of its own (it is ignored), so its test command finds
 * that one, and every story would be judged by the main checkout's code. `execution.worktreeSetup` gives
 * each worktree its own.
 */
export function mainCheckoutImports(
  top: string,
  projectRoot: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const install = editableInstall(projectRoot, top, env);
  if (!install) return undefined;
  return `${install.file} points at the main checkout (${top}): a story worktree's tests would import the main checkout's code, not the worktree's. Set execution.worktreeSetup to give each worktree its own install (for example "python3 -m venv .venv && .venv/bin/pip install -e .")`;
}
