import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { InputError } from "../config/input-error.js";
import type { Config } from "../config/schema.js";
import { execCommand } from "../process/executor.js";
import { shellQuote } from "../util/shell-quote.js";
import { errorText, settleWithin } from "./bounded.js";
import { pluginInputError } from "./errors.js";
import { PluginSetBuilder } from "./registry.js";
import type { PluginSet } from "./types.js";
import { describeValue, PluginShapeError, validatePlugin } from "./validate.js";

/** A factory that has not returned by then is reported instead of holding up the run. */
const FACTORY_TIMEOUT_MS = 30_000;

interface Entry {
  module: string;
  index: number;
}

/**
 * Loads every plugin in `config.plugins`, in order, before anything runs: resolves the module (a path
 * against the project root, or a package installed in the project), imports it, calls its default
 * export with the entry's options and `{ root }`, and checks what it returns. Anything that goes wrong
 * is an InputError on `.gantry/config.json` at `plugins[i]`, naming the module and the cause.
 */
export async function loadPlugins(config: Pick<Config, "plugins">, root: string): Promise<PluginSet> {
  const builder = new PluginSetBuilder();
  for (const [index, entry] of config.plugins.entries()) {
    const [module, options] = typeof entry === "string" ? [entry, {}] : entry;
    const at: Entry = { module, index };
    if (module.trim() === "") {
      throw pluginInputError(
        { module: "(empty)", index },
        "is not a module; expected a path or a package name",
      );
    }
    const url = resolvePlugin(at, root);
    let exported: { default?: unknown };
    try {
      exported = await import(url);
    } catch (error) {
      throw pluginInputError(at, `failed to load: ${await loadErrorText(error, url, root)}`, error);
    }
    let factory = exported.default;
    // A CommonJS module compiled from `export default` has the factory one level down.
    const nested = (factory as { default?: unknown } | null | undefined)?.default;
    if (typeof factory === "object" && typeof nested === "function") factory = nested;
    if (typeof factory !== "function") {
      throw pluginInputError(
        at,
        `has no plugin factory: expected a default export (options, context) => plugin, got ${describeValue(factory)}`,
      );
    }
    const settled = await settleWithin(() => factory(structuredClone(options), { root }), {
      timeoutMs: FACTORY_TIMEOUT_MS,
    });
    if (settled.kind === "threw") {
      throw pluginInputError(at, `threw in its factory: ${errorText(settled.error)}`, settled.error);
    }
    if (settled.kind !== "value") {
      throw pluginInputError(at, `factory did not return within ${FACTORY_TIMEOUT_MS / 1000} s`);
    }
    let plugin: ReturnType<typeof validatePlugin>;
    try {
      plugin = validatePlugin(settled.value);
    } catch (error) {
      if (!(error instanceof PluginShapeError)) throw error;
      throw pluginInputError(at, `returned a wrong plugin: ${error.message}`, error);
    }
    builder.add({ name: plugin.name, module, index }, plugin);
  }
  return builder.build();
}

/** A file URL for the plugin: `./`, `../`, absolute and `file:` entries are files, anything else a package. */
export function resolvePlugin(at: Entry, root: string): string {
  const spec = at.module;
  if (spec.startsWith("file:") || spec.startsWith("./") || spec.startsWith("../") || isAbsolute(spec)) {
    const path = spec.startsWith("file:") ? fileURLToPath(spec) : resolve(root, spec);
    if (!existsSync(path)) throw notFound(at, `no file at ${path}`);
    return pathToFileURL(path).href;
  }
  const require = createRequire(join(root, "package.json"));
  try {
    return pathToFileURL(require.resolve(spec)).href;
  } catch (error) {
    // require.resolve knows only the "require" / "default" conditions; an import-only package is still fine.
    const entry = importEntry(spec, require.resolve.paths(spec) ?? []);
    if (entry) return pathToFileURL(entry).href;
    throw notFound(at, `${errorText(error)}; is the package installed in ${root}?`, error);
  }
}

function notFound(at: Entry, detail: string, cause?: unknown): InputError {
  return pluginInputError(at, `was not found: ${detail}`, cause);
}

/** The file an `import` of a bare package name would load, from its package.json `exports` (or `module`/`main`). */
function importEntry(spec: string, searchPaths: string[]): string | undefined {
  if (!/^(@[^/]+\/)?[^/@.][^/]*$/.test(spec)) return undefined;
  for (const dir of searchPaths) {
    const pkgDir = join(dir, spec);
    const manifest = join(pkgDir, "package.json");
    if (!existsSync(manifest)) continue;
    try {
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, unknown>;
      const target = pickExport(pkg.exports) ?? stringOr(pkg.module) ?? stringOr(pkg.main) ?? "index.js";
      const file = join(pkgDir, target);
      return existsSync(file) ? file : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function pickExport(exports: unknown): string | undefined {
  if (typeof exports === "string") return exports;
  if (Array.isArray(exports)) return exports.map(pickExport).find(Boolean);
  if (typeof exports !== "object" || exports === null) return undefined;
  const map = exports as Record<string, unknown>;
  if ("." in map) return pickExport(map["."]);
  for (const condition of ["import", "node", "default"]) {
    const found = pickExport(map[condition]);
    if (found) return found;
  }
  return undefined;
}

const stringOr = (value: unknown) => (typeof value === "string" && value ? value : undefined);

/** The error, one line; for a syntax error in the plugin file itself, with the file and line `node --check` finds. */
async function loadErrorText(error: unknown, url: string, root: string): Promise<string> {
  const text = errorText(error);
  if (!(error instanceof SyntaxError)) return text;
  const path = fileURLToPath(url);
  const check = await execCommand({
    command: `${shellQuote(process.execPath)} --check ${shellQuote(path)}`,
    cwd: root,
    timeoutMs: 10_000,
    tailBytes: 64 * 1024,
  });
  const where = /^(.*):(\d+)\s*$/m.exec(check.stderrTail);
  if (check.exitCode === 0 || !where?.[1] || !where[2]) return text;
  const file = relative(root, where[1]);
  return `${text} (${file.startsWith("..") ? where[1] : file}:${where[2]})`;
}
