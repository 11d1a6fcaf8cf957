import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** Where a project keeps its virtualenv, besides the one activated ($VIRTUAL_ENV). */
const VENV_DIRS = [".venv", "venv", "env", ".env"];
/** Files of site-packages through which an editable install points at the code it imports. */
const EDITABLE = /^(__editable__.*\.(pth|py)|.*\.pth|.*\.egg-link)$/;

/**
 * Why a story worktree's tests would import the main checkout's code rather than the worktree's, or
 * undefined: a virtualenv of the project (or the one activated) holds an editable install (`pip install
 * -e .`: a `.pth` file, an `__editable__` finder, an `.egg-link`) naming a folder of the main checkout. The
 * worktree has no virtualenv of its own (it is ignored), so its test command finds that one, and every
 * story is judged by the main checkout's code. `execution.worktreeSetup` gives each worktree its own.
 */
export function mainCheckoutImports(
  top: string,
  projectRoot: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const venvs = [
    ...VENV_DIRS.map((d) => join(projectRoot, d)),
    ...(env.VIRTUAL_ENV ? [env.VIRTUAL_ENV] : []),
  ];
  for (const venv of venvs) {
    for (const site of sitePackages(venv)) {
      for (const name of safeList(site)) {
        if (!EDITABLE.test(name)) continue;
        const text = safeRead(join(site, name));
        if (text === undefined || !text.includes(top)) continue;
        const where = relative(projectRoot, join(site, name));
        return `${where.startsWith("..") ? join(site, name) : where} points at the main checkout (${top}): a story worktree's tests would import the main checkout's code, not the worktree's. Set execution.worktreeSetup to give each worktree its own install (for example "python3 -m venv --system-site-packages .venv && .venv/bin/pip install --no-build-isolation -e .")`;
      }
    }
  }
  return undefined;
}

/** `<venv>/lib/python3.x/site-packages` (and `lib64`), and Windows' `<venv>/Lib/site-packages`. */
function sitePackages(venv: string): string[] {
  if (!existsSync(join(venv, "pyvenv.cfg"))) return [];
  const found: string[] = [];
  for (const lib of ["lib", "lib64"])
    for (const python of safeList(join(venv, lib)))
      if (python.startsWith("python")) found.push(join(venv, lib, python, "site-packages"));
  found.push(join(venv, "Lib", "site-packages"));
  return found.filter((dir) => existsSync(dir));
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function safeRead(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
