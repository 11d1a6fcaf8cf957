import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { findOnPath } from "../../process/find-executable.js";
import { projectVenv, VENV_DIRS } from "./project-venv.js";

/** Files of site-packages through which an editable install names the folder it imports from. */
const EDITABLE = /^(__editable__.*\.(pth|py)|.*\.pth|.*\.egg-link)$/;

export interface EditableInstall {
  /** The virtualenv's folder, relative to the project when inside it, else absolute. */
  venv: string;
  /** The site-packages file that names `top` (a `.pth`, an `__editable__` finder, an `.egg-link`). */
  file: string;
}

/**
 * An editable install (`pip install -e .`, `setup.py develop`) into a virtualenv of the project (or the one
 * activated) that imports from a folder of `top`, or undefined.
 */
export function editableInstall(
  projectRoot: string,
  top: string,
  env: NodeJS.ProcessEnv = process.env,
): EditableInstall | undefined {
  const venvs = [
    ...VENV_DIRS.map((d) => join(projectRoot, d)),
    ...(env.VIRTUAL_ENV ? [env.VIRTUAL_ENV] : []),
  ];
  const shown = (path: string) => {
    const rel = relative(projectRoot, path);
    return rel.startsWith("..") ? path : rel;
  };
  for (const venv of venvs) {
    for (const site of sitePackages(venv)) {
      for (const name of list(site)) {
        if (!EDITABLE.test(name) || !read(join(site, name))?.includes(top)) continue;
        return { venv: shown(venv), file: shown(join(site, name)) };
      }
    }
  }
  return undefined;
}

/** pyproject.toml has its build write an ignored file the code imports (setuptools-scm, hatch-vcs). */
const GENERATED_VERSION_FILE = /^\s*(write_to|version_file|version-file)\s*=/m;

/**
 * What `execution.worktreeSetup` `gantry init` proposes. A project installed editable into its virtualenv
 * needs a virtualenv and install of each story worktree's own, or the worktree's tests import the main
 * checkout's code; one whose build writes a file it imports (a version file, ignored) needs that build run.
 * The worktree's virtualenv is made as the project's was: from the same python, with the system's packages
 * when it has them (a distribution's pytest is then found in the worktree too).
 */
export function proposedWorktreeSetup(root: string, env: NodeJS.ProcessEnv = {}): string | undefined {
  const install = editableInstall(root, root, env);
  const generates = GENERATED_VERSION_FILE.test(read(join(root, "pyproject.toml")) ?? "");
  if (!install && !generates) return undefined;
  const own = projectVenv(root);
  const venv = install && !install.venv.startsWith("/") ? install.venv : (own?.dir ?? ".venv");
  const made = own?.dir === venv ? own : undefined;
  const python = made?.basePython && !samePython(made.basePython, env) ? made.basePython : "python3";
  const system = made?.systemSitePackages ? " --system-site-packages" : "";
  return `${python} -m venv${system} ${venv} && ${venv}/bin/pip install -e .`;
}

/** `python3` on PATH is the same program as `python`. */
function samePython(python: string, env: NodeJS.ProcessEnv): boolean {
  const onPath = findOnPath("python3", env.PATH ?? process.env.PATH);
  if (!onPath) return false;
  try {
    return realpathSync(onPath) === realpathSync(python);
  } catch {
    return false;
  }
}

/** `<venv>/lib/python3.x/site-packages` (and `lib64`), and Windows' `<venv>/Lib/site-packages`. */
function sitePackages(venv: string): string[] {
  if (!existsSync(join(venv, "pyvenv.cfg"))) return [];
  const found: string[] = [];
  for (const lib of ["lib", "lib64"])
    for (const python of list(join(venv, lib)))
      if (python.startsWith("python")) found.push(join(venv, lib, python, "site-packages"));
  found.push(join(venv, "Lib", "site-packages"));
  return found.filter((dir) => existsSync(dir));
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
