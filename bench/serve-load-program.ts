/**
 * Which program plays the serve bench's clients: `c`, bench/serve-load.c compiled once per source (the
 * default: it takes a small share of node's CPU for the same requests), or `node`, bench/serve-load.ts (the
 * clients of rounds one to ten). BENCH_SERVE_CLIENTS=node|c chooses; without a C compiler the bench says so
 * and takes node's.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "./harness.js";

export type ClientsProgram = "c" | "node";

const SOURCE = join(REPO, "bench", "serve-load.c");
let compiled: string | null | undefined;

/** The compiled clients' path, made on first use; null (said once on stderr) when no compiler made it. */
function compiledClients(): string | null {
  if (compiled !== undefined) return compiled;
  const digest = createHash("sha256").update(readFileSync(SOURCE)).digest("hex").slice(0, 16);
  const target = join(tmpdir(), `gantry-bench-serve-load-${digest}`);
  if (existsSync(target)) {
    compiled = target;
    return target;
  }
  const partial = `${target}.${process.pid}`;
  const cc = spawnSync("cc", ["-O2", "-o", partial, SOURCE], { encoding: "utf8", timeout: 60_000 });
  if (cc.status === 0) {
    renameSync(partial, target);
    compiled = target;
  } else {
    compiled = null;
    const why = cc.error?.message ?? cc.stderr.trim().split("\n")[0];
    process.stderr.write(
      `serve bench: the C clients could not be compiled (${why}); node's clients instead\n`,
    );
  }
  return compiled;
}

/** The program asked for (BENCH_SERVE_CLIENTS, default c) where it can run. */
export const DEFAULT_CLIENTS: ClientsProgram = process.env.BENCH_SERVE_CLIENTS === "node" ? "node" : "c";

/** The command line that starts the clients, and which program it is (c falls back to node). */
export function clientsCommand(wanted: ClientsProgram = DEFAULT_CLIENTS): {
  program: ClientsProgram;
  argv: string[];
} {
  const binary = wanted === "c" ? compiledClients() : null;
  if (binary) return { program: "c", argv: [binary] };
  return {
    program: "node",
    argv: [process.execPath, "--import", "tsx", join(REPO, "bench", "serve-load.ts")],
  };
}
