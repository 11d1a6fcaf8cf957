import { readFile, stat } from "node:fs/promises";
import { join, posix } from "node:path";

/**
 * Who imports whom, among the project's own JS/TS and Python files, read with regular expressions: cheap,
 * and erring towards an extra edge (an import in a comment) rather than a missing one. Only relative
 * specifiers are followed in JS/TS (bare ones are packages; tsconfig path aliases are not read), resolved
 * the way NodeNext and bundlers do: `./x.js` may be `x.ts`, `./x` may be `x.ts` or `x/index.ts`.
 */

/** Files larger than this are generated or bundled; they are not read. */
const MAX_FILE_BYTES = 1024 * 1024;
const READ_CONCURRENCY = 32;

const JS_RESOLVE_EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json"];
/** NodeNext: the specifier names the emitted file, the source has the TypeScript extension. */
const JS_TO_TS: Record<string, string[]> = {
  ".js": [".ts", ".tsx"],
  ".jsx": [".tsx"],
  ".mjs": [".mts"],
  ".cjs": [".cts"],
};

const JS_PATTERNS = [
  // import x from "y", import { a } from "y", export * from "y", export { a } from "y", import type ...
  /\bfrom\s*["']([^"'\n]+)["']/g,
  // import "y" (for its side effects)
  /\bimport\s*["']([^"'\n]+)["']/g,
  // require("y"), import("y"), and the same in vi.mock / jest.mock calls' first argument
  /\b(?:require|import|mock|requireActual|importActual)\s*\(\s*["'`]([^"'`\n$]+)["'`]/g,
];

/** Specifiers a JS/TS source imports, in order, repeated ones once. */
export function jsImports(source: string): string[] {
  const found = new Set<string>();
  for (const pattern of JS_PATTERNS) {
    for (const match of source.matchAll(pattern)) if (match[1]) found.add(match[1]);
  }
  return [...found];
}

export interface PythonImport {
  /** Leading dots of a relative import (0 for absolute). */
  level: number;
  /** The dotted module after the dots, possibly empty (`from . import x`). */
  module: string;
  /** Names after `import` in a `from` import: each may be a submodule. */
  names: string[];
}

export function pythonImports(source: string): PythonImport[] {
  const out: PythonImport[] = [];
  for (const match of source.matchAll(
    /^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)/gm,
  )) {
    const names = (match[3] ?? "")
      .replace(/[()\\]/g, " ")
      .split(",")
      .map((part) => part.trim().split(/\s+/)[0] ?? "")
      .filter((name) => /^\w+$/.test(name));
    out.push({ level: match[1]?.length ?? 0, module: match[2] ?? "", names });
  }
  for (const match of source.matchAll(/^[ \t]*import[ \t]+([\w. \t,]+)/gm)) {
    for (const part of (match[1] ?? "").split(",")) {
      const module = part.trim().split(/\s+/)[0] ?? "";
      if (/^[\w.]+$/.test(module)) out.push({ level: 0, module, names: [] });
    }
  }
  return out;
}

/** The project file `specifier` names from `fromFile`, among `known` (project-relative, `/`-separated). */
export function resolveJs(
  fromFile: string,
  specifier: string,
  known: ReadonlySet<string>,
): string | undefined {
  const spec = specifier.replace(/[?#].*$/, "");
  if (!(spec === "." || spec === ".." || spec.startsWith("./") || spec.startsWith("../"))) return undefined;
  const base = posix.normalize(posix.join(posix.dirname(fromFile), spec)).replace(/\/$/, "");
  if (base === ".." || base.startsWith("../")) return undefined;
  const ext = posix.extname(base);
  const stem = base.slice(0, base.length - ext.length);
  const candidates = [
    base,
    ...(JS_TO_TS[ext] ?? []).map((tsExt) => stem + tsExt),
    ...JS_RESOLVE_EXTENSIONS.map((e) => base + e),
    ...JS_RESOLVE_EXTENSIONS.map((e) => `${base === "." ? "" : `${base}/`}index${e}`),
  ];
  return candidates.find((candidate) => known.has(candidate));
}

/**
 * The project files a Python import may load. Relative imports count from the importing file's package;
 * absolute ones are tried from the project root and from src/ (the two layouts Python projects use).
 */
export function resolvePython(fromFile: string, imp: PythonImport, known: ReadonlySet<string>): string[] {
  const bases: string[] = [];
  const modulePath = imp.module ? imp.module.split(".") : [];
  if (imp.level > 0) {
    const dir = posix
      .dirname(fromFile)
      .split("/")
      .filter((part) => part !== ".");
    if (imp.level - 1 > dir.length) return [];
    bases.push([...dir.slice(0, dir.length - (imp.level - 1)), ...modulePath].join("/"));
  } else {
    if (modulePath.length === 0) return [];
    bases.push(modulePath.join("/"), ["src", ...modulePath].join("/"));
  }
  const found: string[] = [];
  for (const base of bases) {
    const modules = [base, ...imp.names.map((name) => (base ? `${base}/${name}` : name))];
    for (const module of modules) {
      if (!module) continue;
      for (const candidate of [`${module}.py`, `${module}/__init__.py`]) {
        if (known.has(candidate)) found.push(candidate);
      }
    }
  }
  return found;
}

/** importer → the project files it imports. */
export type ImportGraph = Map<string, Set<string>>;

/**
 * Reads every JS/TS and Python file in `files` and returns the reverse graph: for each file, the files
 * that import it. `known` is every path an import may resolve to (the project's files, plus files the
 * change deleted, so that their importers are still found).
 */
export async function reverseImportGraph(
  projectRoot: string,
  files: readonly string[],
  known: ReadonlySet<string>,
): Promise<ImportGraph> {
  const importers: ImportGraph = new Map();
  const parseable = files.filter((file) => /\.([cm]?[jt]sx?|py)$/.test(file) && !/\.d\.[cm]?ts$/.test(file));
  let next = 0;
  const worker = async () => {
    while (next < parseable.length) {
      const file = parseable[next++] as string;
      const text = await readSmallFile(join(projectRoot, file));
      if (text === undefined) continue;
      const targets = file.endsWith(".py")
        ? pythonImports(text).flatMap((imp) => resolvePython(file, imp, known))
        : jsImports(text).flatMap((spec) => resolveJs(file, spec, known) ?? []);
      for (const target of targets) {
        if (target === file) continue;
        const set = importers.get(target);
        if (set) set.add(file);
        else importers.set(target, new Set([file]));
      }
    }
  };
  await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
  return importers;
}

async function readSmallFile(path: string): Promise<string | undefined> {
  try {
    if ((await stat(path)).size > MAX_FILE_BYTES) return undefined;
    return await readFile(path, "utf8");
  } catch {
    return undefined; // Unreadable or gone since it was listed: it imports nothing we can see.
  }
}
