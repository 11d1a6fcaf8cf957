/**
 * The sandbox's cost per agent session: `true` run the way a session runs (execCommand, its own process
 * group, the GANTRY_* environment) under bwrap with the session's layout, against the same without it.
 * Run alone: `node --import tsx bench/sandbox.bench.ts`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { execCommand } from "../src/process/executor.js";
import { type JudgingSandbox, judgingWrapper } from "../src/process/judging-sandbox.js";
import { decideSandbox } from "../src/process/sandbox.js";
import { type Row, row } from "./harness.js";

const SESSIONS = 40;

async function timeSession(
  cwd: string,
  wrapper?: readonly string[],
  judging = false,
  command = "true",
): Promise<number> {
  const started = performance.now();
  const result = await execCommand({
    command,
    cwd,
    timeoutMs: 30_000,
    env: { ...process.env, GANTRY_ROLE: "implement" },
    // A judging command runs as runQualityCommand starts it: reading only.
    ...(judging ? { readsOnly: true } : {}),
    ...(wrapper ? { wrapper } : {}),
  });
  if (result.exitCode !== 0) throw new Error(`session failed: ${result.output || result.spawnError}`);
  return performance.now() - started;
}

export async function runSandboxBench(): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-sandbox-"));
  try {
    for (const dir of [".git", ".gantry"]) mkdirSync(join(root, dir));
    const decided = await decideSandbox("bwrap", root);
    if (decided.kind !== "sandboxed") {
      const why = decided.kind === "unavailable" ? decided.reason : "unsandboxed";
      console.error(`sandbox bench skipped: ${why}`);
      return [];
    }
    const bare: number[] = [];
    const boxed: number[] = [];
    await timeSession(root);
    await timeSession(root, decided.wrapper);
    for (let i = 0; i < SESSIONS; i++) {
      // Alternate, so a slow spell on the machine does not land on one side only.
      if (i % 2 === 0) {
        bare.push(await timeSession(root));
        boxed.push(await timeSession(root, decided.wrapper));
      } else {
        boxed.push(await timeSession(root, decided.wrapper));
        bare.push(await timeSession(root));
      }
    }
    const baseline = row("", bare, 0, "ms").median;
    return [
      ...(decided.judging ? await judgingRows(root, { programs: decided.judging, repository: root }) : []),
      row(
        `session \`true\` under bwrap (${SESSIONS} runs)`,
        boxed,
        baseline,
        "ms",
        "baseline: the same session unsandboxed",
      ),
      row(
        "sandbox: added per session",
        boxed.map((ms, i) => ms - (bare[i] as number)),
        baseline,
        "ms",
        "bwrap - bare, per pair; baseline: the bare session",
      ),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The judging sandbox's cost per judging command (tests, lint, typecheck, checks): `true`, and a one-test
 * `node --test` file, each bare and under judging-sandbox.ts's wrapper (namespaces, two overlay layers,
 * the hiding tmpfs mounts, setpriv), alternated.
 */
async function judgingRows(root: string, sandbox: JudgingSandbox): Promise<Row[]> {
  mkdirSync(join(root, "test"), { recursive: true });
  writeFileSync(
    join(root, "test", "one.test.mjs"),
    'import { test } from "node:test";\ntest("one", () => {});\n',
  );
  const wrapper = judgingWrapper(sandbox, root);
  const rows: Row[] = [];
  for (const [label, command, runs] of [
    ["`true`", "true", SESSIONS],
    ["`node --test` of one test", "node --test test/one.test.mjs", 10],
  ] as const) {
    const bare: number[] = [];
    const boxed: number[] = [];
    await timeSession(root, wrapper, true, command);
    for (let i = 0; i < runs; i++) {
      bare.push(await timeSession(root, undefined, true, command));
      boxed.push(await timeSession(root, wrapper, true, command));
    }
    const baseline = row("", bare, 0, "ms").median;
    rows.push(
      row(`judging ${label} in the judging sandbox (${runs} runs)`, boxed, baseline, "ms", "baseline: bare"),
      row(
        `judging sandbox: added per ${label}`,
        boxed.map((ms, i) => ms - (bare[i] as number)),
        baseline,
        "ms",
        "sandboxed - bare, per pair",
      ),
    );
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runSandboxBench().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
