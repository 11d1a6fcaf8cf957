import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Where a project keeps its virtualenv, in the order looked for. */
export const VENV_DIRS = [".venv", "venv", "env", ".env"] as const;

export interface ProjectVenv {
  /** Its folder, relative to the project: `.venv`. */
  dir: string;
  /** The python it was made from (pyvenv.cfg's `executable`, or `home`'s python3), when it says. */
  basePython?: string;
  /** Made with `--system-site-packages`: it sees the system's packages (a distribution's pytest, say). */
  systemSitePackages: boolean;
}

/**
 * The project's own virtualenv: the first of VENV_DIRS with a pyvenv.cfg and a bin/python. Commands that run
 * the project's Python name it relatively (`.venv/bin/python -m pytest`), so each story worktree, given a
 * virtualenv of its own by execution.worktreeSetup, runs its own and not the main checkout's.
 */
export function projectVenv(root: string): ProjectVenv | undefined {
  for (const dir of VENV_DIRS) {
    const cfg = read(join(root, dir, "pyvenv.cfg"));
    if (cfg === undefined || !existsSync(join(root, dir, "bin", "python"))) continue;
    const value = (key: string) => new RegExp(`^\\s*${key}\\s*=\\s*(.+?)\\s*$`, "m").exec(cfg)?.[1];
    const home = value("home");
    const basePython = value("executable") ?? (home ? join(home, "python3") : undefined);
    return {
      dir,
      ...(basePython ? { basePython } : {}),
      systemSitePackages: value("include-system-site-packages") === "true",
    };
  }
  return undefined;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
