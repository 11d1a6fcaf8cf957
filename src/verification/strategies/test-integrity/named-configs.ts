import { posix } from "node:path";
import { parseObject, stringRecord } from "./config-text.js";
import { reachedScripts } from "./package-scripts.js";
import { readAt, type TreeChange } from "./tree-diff.js";

/** npm script names that are about lint or type checks whatever the configured commands say. */
export const CHECK_SCRIPT = /^(?:pre|post)?(?:lint|typecheck|type-check|check-types|types|tsc)(?:$|[:._-])/;
/** A flag that points a checker at its config: `eslint -c x`, `tsc -p x`, `mypy --config-file=x`, `pylint --rcfile x`. */
const CONFIG_FLAG =
  /(?:^|\s)(?:-c|-p|--config(?:-file|-path)?|--project|--rcfile|--ignore-path|--tsconfig|--settings(?:-path)?)(?:\s+|=)("[^"]*"|'[^']*'|[^\s;&|)]+)/g;
/** A file that may be a config: a data format, a dotfile, no extension, or a path that says so. */
const CONFIG_FORMAT = /\.(?:json5?|jsonc|ya?ml|toml|ini|cfg|conf|neon|xml)$/i;
const CONFIG_LIKE_NAME = /config|lint|check/i;
export function mayBeConfig(path: string): boolean {
  const base = posix.basename(path);
  return (
    CONFIG_FORMAT.test(base) || base.startsWith(".") || !base.includes(".") || CONFIG_LIKE_NAME.test(path)
  );
}

/** The paths (relative to the project root, `./` dropped) the commands name after a config flag. */
export function configFlagPaths(commands: readonly string[]): string[] {
  const paths = new Set<string>();
  for (const command of commands) {
    for (const match of command.matchAll(CONFIG_FLAG)) {
      const path = posix.normalize((match[1] ?? "").replace(/^["']|["']$/g, ""));
      if (path !== "." && path !== "./" && !path.startsWith("../") && !path.startsWith("/")) paths.add(path);
    }
  }
  return [...paths].sort();
}

/** Whether `path` is one of `named`, or under one of them that names a folder (`--config-path lint/`). */
export function isNamed(path: string, named: readonly string[]): boolean {
  return named.some((name) => path === name || (name.endsWith("/") && path.startsWith(name)));
}

/**
 * The config files the lint / type-check commands name, directly or through the package.json scripts they
 * reach. package.json is read (at the judged tree) only when the story changed a file that could be one:
 * a story that changed only source files, docs or text (whose paths do not say config, rc, lint or
 * check) costs nothing here.
 */
export async function namedCheckConfigs(input: {
  root: string;
  tree: string;
  changes: readonly TreeChange[];
  checkCommands: readonly string[];
}): Promise<string[]> {
  if (!input.changes.some((c) => mayBeConfig(c.from) || mayBeConfig(c.path)))
    return configFlagPaths(input.checkCommands);
  const pkg = parseObject((await readAt(input.root, input.tree, "package.json")) ?? "{}") ?? {};
  const scripts = stringRecord(pkg.scripts);
  const reached = reachedScripts(input.checkCommands, CHECK_SCRIPT, [scripts]);
  return configFlagPaths([...input.checkCommands, ...reached.map((name) => scripts[name] ?? "")]);
}
