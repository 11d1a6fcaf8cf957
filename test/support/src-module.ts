import { fileURLToPath } from "node:url";

/**
 * The path of a module of src/ (`process/executor`) as the tests run: TypeScript under tsx, the compiled
 * JavaScript of .test-build under `npm test`. For a child process that imports it by path.
 */
export function srcModule(module: string): string {
  const compiled = import.meta.url.endsWith(".js");
  return fileURLToPath(new URL(`../../src/${module}.${compiled ? "js" : "ts"}`, import.meta.url));
}
