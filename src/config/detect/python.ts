/**
 * Python projects: pyproject.toml, setup.cfg, setup.py, Pipfile, requirements*.txt, pytest.ini. A tool
 * counts when it has a config section or file, or is named as a dependency. Commands are the plain
 * `python -m pytest`, `ruff`, `mypy` calls, or, when the project has a virtualenv (`.venv`, `venv`, ...),
 * that virtualenv's (`.venv/bin/python -m pytest`, `.venv/bin/ruff` when it is installed there): a
 * `python` from PATH may be another install that imports another copy of the code (or edit them to
 * `uv run ...` / `poetry run ...`).
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { projectVenv } from "./project-venv.js";
import { type ManifestScan, scanIni, scanRequirements, scanToml } from "./python-manifests.js";
import type { Found, ProjectFiles, StackResult } from "./types.js";

const MARKERS = /^(pyproject\.toml|setup\.cfg|setup\.py|Pipfile|pytest\.ini|requirements.*\.txt)$/;

interface PythonProject {
  files: ProjectFiles;
  pyproject: ManifestScan | undefined;
  setupCfg: ManifestScan | undefined;
  tox: ManifestScan | undefined;
  /** Dependency name → the file that lists it. */
  deps: Map<string, string>;
}

function load(files: ProjectFiles): PythonProject {
  const deps = new Map<string, string>();
  const add = (names: Iterable<string>, file: string) => {
    for (const name of names) if (!deps.has(name)) deps.set(name, file);
  };
  const read = <T>(name: string, scan: (text: string) => T): T | undefined => {
    const text = files.read(name);
    return text === undefined ? undefined : scan(text);
  };
  const pyproject = read("pyproject.toml", scanToml);
  const setupCfg = read("setup.cfg", scanIni);
  const tox = read("tox.ini", scanIni);
  const pipfile = read("Pipfile", scanToml);
  if (pyproject) add(pyproject.dependencies, "pyproject.toml");
  if (setupCfg) add(setupCfg.dependencies, "setup.cfg");
  if (pipfile) add(pipfile.dependencies, "Pipfile");
  for (const name of files.matching(/^requirements.*\.txt$/)) {
    add(read(name, scanRequirements) ?? [], name);
  }
  return { files, pyproject, setupCfg, tox, deps };
}

/** Where a tool is configured or listed: a pyproject section, an INI section, a config file, a dependency. */
function toolSource(
  project: PythonProject,
  tool: { dep: string; pyproject?: RegExp; ini?: string; files?: readonly string[] },
): string | undefined {
  const section =
    tool.pyproject && [...(project.pyproject?.sections ?? [])].find((s) => tool.pyproject?.test(s));
  if (section) return `[${section}] in pyproject.toml`;
  const file = tool.files && project.files.first(tool.files);
  if (file) return file;
  if (tool.ini && project.setupCfg?.sections.has(tool.ini)) return `[${tool.ini}] in setup.cfg`;
  if (tool.ini && project.tox?.sections.has(tool.ini.replace("tool:", ""))) {
    return `[${tool.ini.replace("tool:", "")}] in tox.ini`;
  }
  const listed = project.deps.get(tool.dep);
  return listed ? `${tool.dep} in ${listed}` : undefined;
}

/** A `tests/` or `test/` folder holding `test_*.py` / `*_test.py` files: pytest collects it with no manifest. */
function pytestFolder(files: ProjectFiles): string | undefined {
  for (const folder of ["tests", "test"]) {
    let names: string[];
    try {
      names = readdirSync(join(files.root, folder));
    } catch {
      continue;
    }
    if (names.some((name) => /^test_.*\.py$|_test\.py$/.test(name))) return `${folder}/`;
  }
  return undefined;
}

/** The project's virtualenv's python and tools, when it has one; the plain names otherwise. */
function toolsOf(root: string) {
  const venv = projectVenv(root);
  const python = venv ? `${venv.dir}/bin/python` : "python";
  const tool = (name: string) =>
    venv && existsSync(join(root, venv.dir, "bin", name)) ? `${venv.dir}/bin/${name}` : name;
  return { venv, python, tool };
}

export function detectPython(files: ProjectFiles): StackResult | undefined {
  const markers = files.matching(MARKERS);
  const { venv, python, tool } = toolsOf(files.root);
  const venvNote = venv
    ? [`the commands run ${venv.dir}'s python and tools, so each story worktree runs its own ${venv.dir}`]
    : [];
  if (markers.length === 0) {
    const folder = pytestFolder(files);
    if (!folder) return undefined;
    const source = `Python tests in ${folder} (pytest collects them; no manifest)`;
    return {
      stack: "python",
      manifest: folder,
      commands: {
        test: { command: `${python} -m pytest`, source },
        testScoped: { command: `${python} -m pytest {{files}}`, source },
      },
      notes: [
        "no pyproject.toml, setup.cfg or requirements*.txt: pytest must be installed where the tests run",
        ...venvNote,
      ],
    };
  }
  const project = load(files);
  const result: StackResult = {
    stack: "python",
    manifest: markers.join(", "),
    commands: {},
    notes: [...venvNote],
  };
  const c = result.commands;
  const set = (key: keyof typeof c, command: string, source: string) => {
    c[key] = { command, source } satisfies Found;
  };

  const pytest = toolSource(project, {
    dep: "pytest",
    pyproject: /^tool\.pytest(\.|$)/,
    ini: "tool:pytest",
    files: ["pytest.ini", "conftest.py"],
  });
  if (pytest) {
    set("test", `${python} -m pytest`, pytest);
    set("testScoped", `${python} -m pytest {{files}}`, pytest);
  } else {
    result.notes.push("no pytest configuration or dependency found");
  }

  const ruff = toolSource(project, {
    dep: "ruff",
    pyproject: /^tool\.ruff(\.|$)/,
    files: ["ruff.toml", ".ruff.toml"],
  });
  // The lint command checks the formatting too: a formatting slip fails review and formatFix fixes it.
  if (ruff) {
    const r = tool("ruff");
    set("lint", `${r} check . && ${r} format --check .`, ruff);
    set("lintFix", `${r} check --fix .`, ruff);
    set("formatFix", `${r} format .`, ruff);
  } else {
    const black = toolSource(project, { dep: "black", pyproject: /^tool\.black$/ });
    if (black) {
      set("lint", `${tool("black")} --check .`, black);
      set("formatFix", `${tool("black")} .`, black);
    }
  }

  const mypy = toolSource(project, {
    dep: "mypy",
    pyproject: /^tool\.mypy(\.|$)/,
    ini: "mypy",
    files: ["mypy.ini", ".mypy.ini"],
  });
  if (mypy) set("typecheck", `${tool("mypy")} .`, mypy);
  else {
    const pyright = toolSource(project, {
      dep: "pyright",
      pyproject: /^tool\.pyright$/,
      files: ["pyrightconfig.json"],
    });
    if (pyright) set("typecheck", tool("pyright"), pyright);
  }
  return result;
}
