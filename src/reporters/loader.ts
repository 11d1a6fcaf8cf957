import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { InputError } from "../config/input-error.js";
import { type Bounded, within } from "../process/timeout.js";
import { resolvePackage } from "./resolve-package.js";
import { type NamedReporter, REPORTER_METHODS, type ReporterContext, type ReporterFactory } from "./types.js";

const BUILTINS = {
  default: () => import("./default.js"),
  json: () => import("./json.js"),
  junit: () => import("./junit.js"),
  github: () => import("./github.js"),
  markdown: () => import("./markdown.js"),
  html: () => import("./html.js"),
} satisfies Record<string, () => Promise<{ default: unknown }>>;

export type BuiltinReporter = keyof typeof BUILTINS;
export const BUILTIN_REPORTERS = Object.keys(BUILTINS) as BuiltinReporter[];

/** A `reporters` config entry: a name, or `[name, options]`. */
export type ReporterEntry = string | readonly [string, Record<string, unknown>];

/** Where entries came from, for errors: the config file and key, or the command line. */
export interface ReporterOrigin {
  file: string;
  path: string;
}
export const CONFIG_ORIGIN: ReporterOrigin = { file: ".gantry/config.json", path: "reporters" };
export const CLI_ORIGIN: ReporterOrigin = { file: "command line", path: "--reporter" };

/** A reporter module that is loaded and whose default export is a factory, not yet called. */
export interface ResolvedReporter {
  name: string;
  spec: string;
  builtin: boolean;
  options: Record<string, unknown>;
  factory: ReporterFactory;
  index: number;
  origin: ReporterOrigin;
}

/**
 * A reporter that cannot be loaded or set up. An InputError (exit code 2, named after the config entry), with
 * the underlying error as `cause`.
 */
export class ReporterLoadError extends InputError {
  constructor(
    origin: ReporterOrigin,
    index: number,
    readonly reporter: string,
    problem: string,
    cause?: unknown,
  ) {
    super(origin.file, `${origin.path}[${index}]`, `reporter "${reporter}": ${problem}`, "GANTRY_E_PLUGIN");
    if (cause !== undefined) this.cause = cause;
  }
}

/** A factory (which may be async) that has not returned by then stops the run instead of holding it up. */
export const FACTORY_TIMEOUT_MS = 30_000;
const LOOKS_BUILTIN = /^[a-z][a-z0-9-]*$/;
const firstLine = (error: unknown) => describeError(error).split("\n")[0] as string;
const describeError = (error: unknown) =>
  error instanceof Error
    ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}`
    : String(error);

/** Loads and instantiates every entry; see `resolveReporters` and `createReporters`. */
export async function loadReporters(
  entries: readonly ReporterEntry[],
  context: Pick<ReporterContext, "root" | "runDir" | "stdout" | "stderr"> & Partial<ReporterContext>,
  origin = CONFIG_ORIGIN,
): Promise<NamedReporter[]> {
  return createReporters(await resolveReporters(entries, context.root, origin), context);
}

/**
 * Step one, before the run starts: finds and imports each reporter module (a built-in name, a path relative to
 * the project root, or a package installed in the project) and checks that its default export is a function.
 */
export async function resolveReporters(
  entries: readonly ReporterEntry[],
  root: string,
  origin = CONFIG_ORIGIN,
): Promise<ResolvedReporter[]> {
  const names = new Map<string, number>();
  const resolved: ResolvedReporter[] = [];
  for (const [index, entry] of entries.entries()) {
    const [spec, options = {}] = typeof entry === "string" ? [entry] : entry;
    const fail = (problem: string, cause?: unknown) =>
      new ReporterLoadError(origin, index, spec, problem, cause);
    const builtin = Object.hasOwn(BUILTINS, spec);
    let load: () => Promise<{ default?: unknown }>;
    if (builtin) load = BUILTINS[spec as BuiltinReporter];
    else if (spec.startsWith(".") || isAbsolute(spec)) {
      const path = resolve(root, spec);
      if (!existsSync(path)) throw fail(`no such file: ${path}`);
      load = () => import(pathToFileURL(path).href);
    } else {
      let path: string;
      try {
        path = resolvePackage(spec, root);
      } catch (error) {
        const known = `expected a built-in reporter (${BUILTIN_REPORTERS.join(", ")}), a path starting with ./, or a package installed in ${root}`;
        const missing = (error as { code?: string }).code === "MODULE_NOT_FOUND";
        if (missing && LOOKS_BUILTIN.test(spec)) throw fail(`unknown reporter; ${known}`, error);
        throw fail(missing ? `no package "${spec}" installed in ${root}` : firstLine(error), error);
      }
      load = () => import(pathToFileURL(path).href);
    }
    let module: { default?: unknown };
    try {
      module = await load();
    } catch (error) {
      throw fail(`cannot load the module: ${describeError(error)}`, error);
    }
    let factory = module.default;
    // A CommonJS module transpiled from `export default` puts the factory one level down.
    if (
      typeof factory === "object" &&
      factory !== null &&
      typeof (factory as { default?: unknown }).default === "function"
    )
      factory = (factory as { default: unknown }).default;
    if (typeof factory !== "function")
      throw fail(
        `expected a default export (options, context) => Reporter, got ${factory === null ? "null" : typeof factory}`,
      );
    const count = (names.get(spec) ?? 0) + 1;
    names.set(spec, count);
    resolved.push({
      name: count === 1 ? spec : `${spec}#${count}`,
      spec,
      builtin,
      options: { ...options },
      factory: factory as ReporterFactory,
      index,
      origin,
    });
  }
  return resolved;
}

/**
 * Step two, once the run directory exists and before `run:start`: calls each factory with its options and the
 * context, and checks what it returns. When the `json` reporter is on, it alone writes to standard output: the
 * others get standard error as `context.stdout`.
 */
export async function createReporters(
  resolved: readonly ResolvedReporter[],
  context: Pick<ReporterContext, "root" | "runDir" | "stdout" | "stderr"> & Partial<ReporterContext>,
): Promise<NamedReporter[]> {
  const full: ReporterContext = { env: process.env, now: () => new Date(), ...context };
  const jsonOwnsStdout = resolved.some((r) => r.builtin && r.spec === "json");
  const out: NamedReporter[] = [];
  for (const r of resolved) {
    const fail = (problem: string, cause?: unknown) =>
      new ReporterLoadError(r.origin, r.index, r.spec, problem, cause);
    const stdout = jsonOwnsStdout && r.spec !== "json" ? full.stderr : full.stdout;
    let made: Bounded<unknown>;
    try {
      const factory = construct(r.factory, structuredClone(r.options), { ...full, stdout });
      made = await within(Promise.resolve(factory), { ms: FACTORY_TIMEOUT_MS });
    } catch (error) {
      throw fail(describeError(error), error);
    }
    if (made.kind !== "value") throw fail(`the factory did not return within ${FACTORY_TIMEOUT_MS / 1000} s`);
    const reporter = made.value;
    if (typeof reporter !== "object" || reporter === null)
      throw fail(
        `the factory returned ${reporter === null ? "null" : typeof reporter}; expected a reporter object`,
      );
    const problem = checkMethods(reporter);
    if (problem) throw fail(problem);
    out.push({ name: r.name, reporter: reporter as NamedReporter["reporter"] });
  }
  return out;
}

/**
 * Calls the default export: a factory function, or a class (vitest's reporters are classes), which
 * cannot be called without `new`; both get the options and the context.
 */
function construct(
  factory: ReporterFactory,
  options: Record<string, unknown>,
  context: ReporterContext,
): unknown {
  if (/^class\b/.test(Function.prototype.toString.call(factory))) {
    const Reporter = factory as unknown as new (o: Record<string, unknown>, c: ReporterContext) => unknown;
    return new Reporter(options, context);
  }
  return factory(options, context);
}

const METHODS = new Set<string>([...Object.keys(REPORTER_METHODS), "onEvent"]);

/** A misspelt method would never be called: `on…` names must be known, and functions. */
function checkMethods(reporter: object): string | undefined {
  for (let o: object | null = reporter; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (!/^on[A-Z]/.test(key)) continue;
      if (!METHODS.has(key))
        return `unknown method "${key}"; a reporter's methods are ${[...METHODS].join(", ")}`;
      const value = (reporter as Record<string, unknown>)[key];
      if (value !== undefined && typeof value !== "function")
        return `"${key}" is ${typeof value}, expected a function`;
    }
  }
  return undefined;
}
