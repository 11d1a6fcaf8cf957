/**
 * Just enough of pyproject.toml, Pipfile, setup.cfg and requirements files to see which sections exist
 * and which packages are named as dependencies. Not a TOML or INI parser: a line scan that ignores what
 * it does not understand, so that an odd file gives fewer findings, never an error.
 */
import { normalizeName } from "./types.js";

export interface ManifestScan {
  /** Section names, dotted and unquoted: `tool.pytest.ini_options`, `tool:pytest`, `mypy`. */
  sections: Set<string>;
  /** Normalised package names listed as dependencies of any kind. */
  dependencies: Set<string>;
}

/** The package a requirement names: `pytest-cov[toml]>=4 ; python_version>"3.8"` → `pytest-cov`. */
export function requirementName(spec: string): string | undefined {
  const match = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(spec);
  return match?.[1] ? normalizeName(match[1]) : undefined;
}

/** The line without a trailing `# comment` (a `#` inside quotes is kept). */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "#") return line.slice(0, i);
  }
  return line;
}

const quotedStrings = (text: string): string[] =>
  [...text.matchAll(/"([^"\\]*(?:\\.[^"\\]*)*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? "");

/** Brackets opened minus closed, outside quotes. */
function bracketDepth(text: string): number {
  const bare = text.replace(/"([^"\\]*(?:\\.[^"\\]*)*)"|'([^']*)'/g, "");
  return (bare.match(/\[/g)?.length ?? 0) - (bare.match(/\]/g)?.length ?? 0);
}

/** Sections whose keys are package names (poetry, Pipfile). */
const NAME_KEYED = /^(tool\.poetry(\.group\.[^.]+)?\.(dev-)?dependencies|packages|dev-packages)$/;

/** Whether `key = [...]` in `section` is a list of requirement strings. */
function isRequirementList(section: string, key: string): boolean {
  if (section === "project") return key === "dependencies";
  if (section === "project.optional-dependencies" || section === "dependency-groups") return true;
  if (section === "tool.uv") return key === "dev-dependencies";
  if (section === "tool.pdm.dev-dependencies") return true;
  if (section.startsWith("tool.hatch.envs.")) return key === "dependencies" || key === "extra-dependencies";
  return false;
}

export function scanToml(text: string): ManifestScan {
  const scan: ManifestScan = { sections: new Set(), dependencies: new Set() };
  let section = "";
  let depth = 0; // > 0 while inside a requirement list that spans lines
  for (const raw of text.split(/\r?\n/)) {
    const line = stripComment(raw).trim();
    if (depth > 0) {
      for (const s of quotedStrings(line)) addName(scan, s);
      depth += bracketDepth(line);
      continue;
    }
    const header = /^\[\[?([^\]]+)\]\]?$/.exec(line);
    if (header?.[1]) {
      section = header[1].replace(/["'\s]/g, "");
      scan.sections.add(section);
      continue;
    }
    const assignment = /^("[^"]+"|'[^']+'|[A-Za-z0-9_.-]+)\s*=\s*(.*)$/.exec(line);
    if (!assignment?.[1]) continue;
    const key = assignment[1].replace(/["']/g, "");
    const value = assignment[2] ?? "";
    if (NAME_KEYED.test(section)) addName(scan, key);
    else if (isRequirementList(section, key) && value.startsWith("[")) {
      for (const s of quotedStrings(value)) addName(scan, s);
      depth = bracketDepth(value);
    }
  }
  return scan;
}

function addName(scan: ManifestScan, spec: string): void {
  const name = requirementName(spec);
  if (name) scan.dependencies.add(name);
}

/** setup.cfg and tox.ini: `[section]` headers; requirements under `install_requires`, `extras_require`. */
export function scanIni(text: string): ManifestScan {
  const scan: ManifestScan = { sections: new Set(), dependencies: new Set() };
  let section = "";
  let collecting = false;
  for (const raw of text.split(/\r?\n/)) {
    const header = /^\[([^\]]+)\]\s*$/.exec(raw);
    if (header?.[1]) {
      section = header[1].trim();
      scan.sections.add(section);
      collecting = false;
      continue;
    }
    const line = raw.replace(/\s[#;].*$/, "");
    if (/^\s*([#;]|$)/.test(line)) continue;
    if (/^\s/.test(line)) {
      if (collecting) addName(scan, line);
      continue;
    }
    const assignment = /^([A-Za-z0-9_.-]+)\s*[=:]\s*(.*)$/.exec(line);
    if (!assignment?.[1]) continue;
    const key = assignment[1];
    collecting =
      (section === "options" && /^(install_requires|setup_requires|tests_require)$/.test(key)) ||
      section === "options.extras_require";
    if (collecting && assignment[2]) for (const spec of assignment[2].split(/[,;]/)) addName(scan, spec);
  }
  return scan;
}

/** requirements*.txt: one requirement a line; options (`-r`, `-e`, `--index-url`) are skipped. */
export function scanRequirements(text: string): Set<string> {
  const names = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s#.*$/, "").trim();
    if (!line || line.startsWith("#") || line.startsWith("-")) continue;
    const name = requirementName(line);
    if (name) names.add(name);
  }
  return names;
}
