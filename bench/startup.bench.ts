/**
 * Start-up: `gantry --help` and `gantry validate` on a small project, against `node -e 0`; and what
 * importing zod alone costs, since validate cannot do without it (the config and PRD schemas are zod).
 * Run alone: `node --import tsx bench/startup.bench.ts` (after `npm run build`).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { CLI, expectOk, median, REPO, type Row, requireBuiltCli, row, timeCommand } from "./harness.js";

const RUNS = 5;

function smallProject(): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-startup-"));
  const stories = Array.from({ length: 5 }, (_, i) => ({
    id: `US-00${i + 1}`,
    title: `Story ${i + 1}`,
    description: "A story.",
    acceptanceCriteria: ["it works"],
    ...(i > 0 ? { dependencies: [`US-00${i}`] } : {}),
  }));
  const files: Record<string, string> = {
    ".gantry/config.json": JSON.stringify({
      agent: { default: "command", command: { run: "node agent.mjs" } },
      quality: { commands: { test: "node --test", lint: "true", typecheck: "true" } },
    }),
    ".gantry/features/f/prd.json": JSON.stringify({ feature: "f", userStories: stories }, null, 2),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  // validate is the run's pre-flight: it wants a repository with an identity and a branch.
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["config", "user.name", "bench"],
    ["config", "user.email", "b@example.com"],
  ])
    execFileSync("git", args, { cwd: root });
  return root;
}

export async function runStartupBench(): Promise<Row[]> {
  requireBuiltCli();
  const root = smallProject();
  const commands: Record<string, string[]> = {
    node: ["-e", "0"],
    help: [CLI, "--help"],
    validate: [CLI, "validate", "--dir", root],
    zod: ["--input-type=module", "-e", "await import('zod')"],
  };
  const times: Record<string, number[]> = { node: [], help: [], validate: [], zod: [] };
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const [name, args] of Object.entries(commands)) {
        // zod resolves from gantry's own node_modules, as the CLI's import does.
        const cwd = name === "zod" ? REPO : root;
        const timed = expectOk(`node ${args.join(" ")}`, await timeCommand(process.execPath, args, { cwd }));
        times[name]?.push(timed.wallMs);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const node = median(times.node as number[]);
  return [
    row("start-up: gantry --help", times.help as number[], node, "ms", "baseline: node -e 0"),
    row(
      "start-up: gantry validate (5 stories)",
      times.validate as number[],
      node,
      "ms",
      "baseline: node -e 0; loads zod for the schemas",
    ),
    row(
      "start-up: import zod alone",
      times.zod as number[],
      node,
      "ms",
      "baseline: node -e 0; the part of validate no gantry change removes",
    ),
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runStartupBench().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
