/**
 * Syscalls a story costs, counted with `strace -f -c` over whole `gantry run`s of the generated project (every
 * process, git's included): a story's share is the 3-story run less the 1-story run, halved. Stat calls count
 * the stat passes (git's `newfstatat`, node's `statx`), `getdents64` the folder reads, `execve` the programs.
 * `node --import tsx bench/syscall-count.ts <cli.js>...` (BENCH_COST_SIZES: the files, 10,000 unless set).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { makeFeatureProject } from "./feature-project.js";
import { benchEnvironment } from "./harness.js";

const CALLS = ["newfstatat", "statx", "getdents64", "execve", "openat", "fsync"];
const files = Number(process.env.BENCH_COST_SIZES ?? 10_000);
const builds = process.argv.slice(2).map((cli) => resolve(cli));
if (builds.length === 0) throw new Error("usage: bench/syscall-count.ts <cli.js>...");

/** Calls by name in one run of `cli` on a fresh copy of the project's template. */
function countRun(cli: string, template: string): Record<string, number> {
  const root = mkdtempSync(join(tmpdir(), "gantry-syscalls-"));
  const out = `${root}.strace`;
  try {
    execFileSync("cp", ["-a", `${template}/.`, root]);
    execFileSync("git", ["update-index", "-q", "--refresh"], { cwd: root, stdio: "ignore" });
    const traced = [process.execPath, cli, "run", "--feature", "f", "--dir", root];
    execFileSync("strace", ["-f", "-c", "-o", out, "-e", `trace=${CALLS.join(",")}`, ...traced], {
      cwd: root,
      env: benchEnvironment(),
      stdio: "ignore",
    });
    const counts: Record<string, number> = {};
    for (const line of readFileSync(out, "utf8").split("\n")) {
      // % time, seconds, usecs/call, calls, [errors,] syscall
      const match = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$/.exec(line);
      if (match) counts[match[2] as string] = Number(match[1]);
    }
    return counts;
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(out, { force: true });
  }
}

const projects = [makeFeatureProject(1, files), makeFeatureProject(3, files)] as const;
try {
  for (const cli of builds) {
    const [one, three] = projects.map((project) => countRun(cli, project.template));
    const perStory = CALLS.map((call) => `${call} ${((three?.[call] ?? 0) - (one?.[call] ?? 0)) / 2}`);
    console.log(`${cli} (${files} files), per story: ${perStory.join(", ")}`);
  }
} finally {
  for (const project of projects) project.remove();
}
