import { confine, scopeOf } from "./wrapper-scope.js";

/**
 * A session wrapper (bwrap's command line, up to `--`) that binds the tree read-only instead of writable:
 * for the roles that only read (`plan`, `research`). Their answer goes to a file outside the tree.
 */
export function readOnlyTree(wrapper: readonly string[], root: string): readonly string[] {
  const args = [...wrapper];
  // Only read-only binds are added: the wrapper's reach (activity.ts) still holds.
  const scope = scopeOf(wrapper);
  const kept = (made: string[]) => (scope ? confine(made, scope) : made);
  for (let i = 0; i + 2 < args.length; i++) {
    if (args[i] === "--bind" && args[i + 1] === root && args[i + 2] === root) {
      args.splice(i + 3, 0, "--ro-bind", root, root);
      return kept(args);
    }
  }
  // No writable bind of the tree (another layout): add a read-only one before the command.
  const end = args.lastIndexOf("--");
  args.splice(end < 0 ? args.length : end, 0, "--ro-bind", root, root);
  return kept(args);
}
