import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The entry file of an installed package, looked up from the project root as Node would. `require.resolve` knows
 * only the `require` condition; a package that exports for `import` alone is looked up by hand.
 */
export function resolvePackage(spec: string, root: string): string {
  const require = createRequire(join(root, "package.json"));
  try {
    return require.resolve(spec);
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw error;
    const parts = spec.split("/");
    const name = parts.slice(0, spec.startsWith("@") ? 2 : 1).join("/");
    const subpath = [".", ...parts.slice(spec.startsWith("@") ? 2 : 1)].join("/");
    for (const dir of require.resolve.paths(spec) ?? []) {
      const manifest = join(dir, name, "package.json");
      if (!existsSync(manifest)) continue;
      const target = exportTarget(JSON.parse(readFileSync(manifest, "utf8")).exports, subpath);
      if (target) return join(dirname(manifest), target);
      break;
    }
    throw error;
  }
}

function exportTarget(exports: unknown, subpath: string): string | undefined {
  if (typeof exports === "string" || Array.isArray(exports))
    return subpath === "." ? pick(exports) : undefined;
  if (typeof exports !== "object" || exports === null) return undefined;
  const map = Object.keys(exports).some((k) => k.startsWith(".")) ? exports : { ".": exports };
  return pick((map as Record<string, unknown>)[subpath]);
}

function pick(target: unknown): string | undefined {
  if (typeof target === "string") return target;
  if (Array.isArray(target)) {
    for (const t of target) {
      const found = pick(t);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof target !== "object" || target === null) return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (condition === "import" || condition === "node" || condition === "default") {
      const found = pick(value);
      if (found) return found;
    }
  }
  return undefined;
}
