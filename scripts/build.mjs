#!/usr/bin/env node
// `npm run build`: dist/cli.js and its chunks, bundled by esbuild. Each command's module stays a dynamic
// import (code splitting), so a command still loads only what it needs; what the bundle saves is node's
// per-module work at start-up (resolving, reading, linking some 400 files: ≈ 0.3 s of CPU a run).
// Type checking is tsc's (`npm run typecheck`; `npm run build` runs it first).
import { chmodSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(REPO, "dist");

/**
 * zod's index exports all its ~40 locales (`z.locales`), which gantry never uses: 310 KB of the 755 KB chunk
 * every command that reads a config or a PRD loads (≈ 40 ms of CPU a start). Only English, which zod itself
 * configures by default (`config(en())` imports en.js directly), stays.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${join("node_modules", "zod")}`)
        ? { path: join(dirname(args.importer), "..", "locales", "en.js"), namespace: "zod-locales" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

rmSync(DIST, { recursive: true, force: true });
await build({
  absWorkingDir: REPO,
  entryPoints: ["src/cli.ts"],
  outdir: DIST,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  plugins: [zodEnglishOnly],
  // The dependencies that are CommonJS (commander, ajv) call require(); an ES module has none of its own.
  banner: {
    js: 'import { createRequire as gantryRequire } from "node:module";\nconst require = gantryRequire(import.meta.url);',
  },
});
chmodSync(join(DIST, "cli.js"), 0o755);
