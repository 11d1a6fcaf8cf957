/**
 * What the scratch-copy layer costs against the overlay, per judging command: `true` over a tree of
 * 2,000 source files (1 KB each, 40 folders) and a `node_modules` of 2,000 more, under each layer,
 * alternated. The copy copies the sources and binds `node_modules` read-only (judging-copy.ts); the
 * overlay copies nothing. Needs both layers to work here (root on this kernel).
 * Run alone: `node --import tsx bench/judging-layers.bench.ts`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { execCommand } from "../src/process/executor.js";
import { type JudgingPrograms, judgingWrapper } from "../src/process/judging-sandbox.js";
import { judgingSupport } from "../src/process/judging-support.js";
import { sandboxSupport } from "../src/process/sandbox.js";
import { type Row, row } from "./harness.js";

const RUNS = 12;
const FOLDERS = 40;
const FILES_PER_FOLDER = 50;

function makeTree(root: string): void {
  const text = `${"x".repeat(1023)}\n`;
  for (const top of ["src", "node_modules"]) {
    for (let f = 0; f < FOLDERS; f++) {
      const dir = join(root, top, `d${f}`);
      mkdirSync(dir, { recursive: true });
      for (let i = 0; i < FILES_PER_FOLDER; i++) writeFileSync(join(dir, `f${i}.js`), text);
    }
  }
}

async function timeIt(root: string, wrapper: readonly string[]): Promise<number> {
  const started = performance.now();
  const result = await execCommand({
    command: "true",
    cwd: root,
    timeoutMs: 60_000,
    readsOnly: true,
    wrapper,
  });
  if (result.exitCode !== 0) throw new Error(`judging command failed: ${result.output || result.spawnError}`);
  return performance.now() - started;
}

export async function runJudgingLayersBench(): Promise<Row[]> {
  const found = await sandboxSupport();
  const overlay = found.bwrap ? await judgingSupport(found.bwrap) : undefined;
  if (!overlay?.works || overlay.programs.layer !== "overlay") {
    console.error("judging-layers bench skipped: the overlay layer does not work here");
    return [];
  }
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-layers-"));
  try {
    makeTree(root);
    const wrappers = (["overlay", "copy"] as const).map((layer) => {
      const programs: JudgingPrograms =
        layer === "copy" ? { bwrap: overlay.programs.bwrap, layer } : overlay.programs;
      return judgingWrapper({ programs, repository: root }, root);
    });
    const times: [number[], number[]] = [[], []];
    for (const wrapper of wrappers) await timeIt(root, wrapper);
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      for (const at of order) times[at as 0 | 1].push(await timeIt(root, wrappers[at] as readonly string[]));
    }
    const [overlayMs, copyMs] = times;
    const baseline = row("", overlayMs, 0, "ms").median;
    const files = FOLDERS * FILES_PER_FOLDER;
    return [
      row(
        `judging \`true\` over the overlay, ${files} files + node_modules (${RUNS} runs)`,
        overlayMs,
        0,
        "ms",
      ),
      row(
        `judging \`true\` over a scratch copy, same tree (${RUNS} runs)`,
        copyMs,
        baseline,
        "ms",
        "baseline: the overlay",
      ),
      row(
        "scratch copy: added per judging command",
        copyMs.map((ms, i) => ms - (overlayMs[i] as number)),
        baseline,
        "ms",
        "copy - overlay, per pair",
      ),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runJudgingLayersBench().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
