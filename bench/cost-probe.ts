/**
 * What one gantry run costs in git work and child processes: git's own trace (GIT_TRACE) names every git
 * program started under the run, gantry's and the project's commands' alike (gantry starts git from the
 * system's folders, never through PATH, so no shim could see it), and a preload (`--require`) logs every
 * child the gantry node process spawns. Shared by bench/cost.bench.ts and the scan-count test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Probe {
  /** Environment additions for the measured gantry: GIT_TRACE to the log, NODE_OPTIONS with the preload. */
  env: Record<string, string>;
  /** Every git command line since the probe was made (or last reset), each as its arguments. */
  gitCommands(): string[][];
  /** Every child node spawned since the probe was made (or last reset), each as its command line. */
  children(): string[][];
  reset(): void;
  remove(): void;
}

const SEP = "\u001f";

export function makeProbe(): Probe {
  const dir = mkdtempSync(join(tmpdir(), "gantry-probe-"));
  const gitLog = join(dir, "git.log");
  const childLog = join(dir, "children.log");
  const preload = join(dir, "count-children.cjs");
  writeFileSync(
    preload,
    [
      "const cp = require('node:child_process');",
      "const fs = require('node:fs');",
      "const spawn = cp.ChildProcess.prototype.spawn;",
      "cp.ChildProcess.prototype.spawn = function (options) {",
      `  try { fs.appendFileSync(${JSON.stringify(childLog)}, options.args.join(${JSON.stringify(SEP)}).replace(/\\n/g, ' ') + '\\n'); } catch {}`,
      "  return spawn.call(this, options);",
      "};",
      "",
    ].join("\n"),
  );
  const read = (file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return "";
    }
  };
  return {
    env: {
      GIT_TRACE: gitLog,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --require ${preload}`.trim(),
    },
    gitCommands: () => gitTraceCommands(read(gitLog)),
    children: () =>
      read(childLog)
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(SEP).filter((a, i, all) => i < all.length - 1 || a !== "")),
    reset() {
      rmSync(gitLog, { force: true });
      rmSync(childLog, { force: true });
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The command lines of a GIT_TRACE log: one `trace: built-in: git …` line a git program, its arguments shell-quoted. */
export function gitTraceCommands(log: string): string[][] {
  const commands: string[][] = [];
  for (const line of log.split("\n")) {
    const at = line.indexOf("trace: built-in: git ");
    if (at >= 0) commands.push(unquote(line.slice(at + "trace: built-in: git ".length)));
  }
  return commands;
}

/** git's trace quotes an argument with special characters in single quotes, `'` as `'\\''`. */
function unquote(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      current += text.slice(i + 1, close < 0 ? text.length : close);
      i = close < 0 ? text.length : close;
      started = true;
    } else if (c === "\\" && i + 1 < text.length) {
      current += text[++i];
      started = true;
    } else if (c === " ") {
      if (started) args.push(current);
      current = "";
      started = false;
    } else {
      current += c;
      started = true;
    }
  }
  if (started) args.push(current);
  return args;
}

/** The git subcommand of a command line, past `-c name=value`, `-C dir` and other global options. */
export function subcommandOf(args: readonly string[]): { name: string; rest: string[]; config: string[] } {
  const config: string[] = [];
  let i = 0;
  while (i < args.length) {
    const a = args[i] as string;
    if (a === "-c" || a === "-C") {
      if (a === "-c") config.push(args[i + 1] ?? "");
      i += 2;
    } else if (a.startsWith("-")) i += 1;
    else break;
  }
  return { name: args[i] ?? "", rest: args.slice(i + 1), config };
}

/**
 * Whether a git command reads the whole working tree: lists every directory (untracked files) or compares
 * every tracked file with the disk. A `status` with the untracked cache on (`-c core.untrackedCache=true`)
 * only stats what it cached and is counted as a stat check instead (see statCheck).
 */
export function isFullScan(args: readonly string[]): boolean {
  const { name, rest } = subcommandOf(args);
  const before = rest.indexOf("--");
  const opts = before < 0 ? rest : rest.slice(0, before);
  switch (name) {
    case "add":
      return (opts.includes("-A") || opts.includes("--all") || opts.includes("-u")) && wholeTree(rest);
    case "status":
      return !statCheck(args);
    case "ls-files":
      // A listing limited to some folders (the ignored files where folders changed) reads only those.
      return (
        (opts.includes("--others") || opts.includes("-o") || opts.includes("-m") || opts.includes("-d")) &&
        wholeTree(rest)
      );
    case "diff":
      // `git diff`, `git diff <commit>`: the working tree is one side. Two trees or --cached: no scan.
      return !opts.includes("--cached") && !opts.includes("--staged") && revisions(opts) < 2;
    case "diff-files":
      return true;
    case "commit":
      return opts.includes("-a") || opts.includes("--all");
    case "update-index":
      return opts.includes("--refresh") || opts.includes("--really-refresh");
    case "stash":
      return true;
    default:
      return false;
  }
}

/** A `status` run with the untracked cache: stats directories and files, reads only the changed ones. */
export function statCheck(args: readonly string[]): boolean {
  const { name, config } = subcommandOf(args);
  return name === "status" && config.includes("core.untrackedCache=true");
}

/**
 * Whether a command's pathspecs (after `--`) cover the whole tree: none, or one naming the top or `.`.
 * `add -A -- .gantry/features/x/prd.json` reads one folder, not the tree.
 */
function wholeTree(rest: readonly string[]): boolean {
  const at = rest.indexOf("--");
  const specs = (at < 0 ? [] : rest.slice(at + 1)).filter(
    (p) => !/^:\([^)]*exclude/.test(p) && !p.startsWith(":!"),
  );
  if (specs.length === 0) return true;
  return specs.some((p) => {
    const path = p.replace(/^:\([^)]*\)/, "").replace(/^:\//, "");
    return path === "" || path === ".";
  });
}

function revisions(opts: readonly string[]): number {
  return opts.filter((o) => !o.startsWith("-")).length;
}

/** gantry's compare-and-swap of HEAD: the last git command of a story's commit. */
export function movesHead(args: string[]): boolean {
  return subcommandOf(args).name === "update-ref" && args.includes("HEAD");
}
