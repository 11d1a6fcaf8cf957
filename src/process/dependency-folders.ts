import { join, resolve } from "node:path";
import { confine, scopeOf } from "./wrapper-scope.js";

/** The project's dependency folders: read-only to sessions when they exist before the story. */
export const DEPENDENCY_FOLDERS = ["node_modules", ".venv", "venv"] as const;

/**
 * A session wrapper with the tree's dependency folders writable again: for `quality.commands.install`,
 * which gantry runs when a story changed the manifest. Its reach stays the tree's, as the wrapper's.
 */
export function withDependenciesWritable(wrapper: readonly string[], root: string): readonly string[] {
  const folders = new Set(DEPENDENCY_FOLDERS.map((name) => join(resolve(root), name)));
  const args: string[] = [];
  for (let i = 0; i < wrapper.length; i += 1) {
    const at = wrapper[i] as string;
    if (at === "--ro-bind" && folders.has(wrapper[i + 1] as string) && wrapper[i + 1] === wrapper[i + 2]) {
      i += 2;
      continue;
    }
    args.push(at);
  }
  const scope = scopeOf(wrapper);
  return scope ? confine(args, scope) : args;
}
