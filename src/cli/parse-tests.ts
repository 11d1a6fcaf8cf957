/**
 * `gantry parse-tests FILE|- [--runner NAME] [--exit-code N] [--json]`: shows what gantry reads in a
 * test log, the same way verify does. Exit code 0 whenever the log was parsed (whatever its status),
 * 2 for bad usage.
 */
import { readFile } from "node:fs/promises";
import type { VerifyStatus } from "../model/verify.js";
import { type ParserTrial, parserNames, parseWithTrials } from "../verification/parsers/registry.js";
import type { ParsedTests } from "../verification/parsers/types.js";
import { judgeStatus } from "../verification/status.js";

export interface ParseTestsOptions {
  runner?: string;
  exitCode?: string;
  json?: boolean;
}

/** Where the command reads and writes; the process's own streams unless a test passes others. */
export interface ParseTestsIo {
  stdin?: NodeJS.ReadableStream;
  stdout?: { write(chunk: string): unknown };
  stderr?: { write(chunk: string): unknown };
}

const USAGE = 2;

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

export async function parseTestsCommand(
  file: string,
  options: ParseTestsOptions,
  io: ParseTestsIo = {},
): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const fail = (message: string): number => {
    stderr.write(`gantry parse-tests: ${message}\n`);
    return USAGE;
  };

  if (options.runner !== undefined && !parserNames.includes(options.runner)) {
    return fail(`unknown runner "${options.runner}"; valid runners: ${parserNames.join(", ")}`);
  }
  let exitCode: number | undefined;
  if (options.exitCode !== undefined) {
    if (!/^-?\d+$/.test(options.exitCode.trim()))
      return fail(`--exit-code must be an integer, got "${options.exitCode}"`);
    exitCode = Number.parseInt(options.exitCode, 10);
  }
  if (!file) return fail("missing FILE (a log file, or - for standard input)");

  let text: string;
  try {
    text = file === "-" ? await readAll(io.stdin ?? process.stdin) : await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : (error as Error).message;
    return fail(`cannot read ${file}: ${why}`);
  }

  const { parsed, tried } = parseWithTrials(text, options.runner ? { runner: options.runner } : {});
  let status: VerifyStatus = parsed.status;
  let reason = parsed.reason;
  if (exitCode !== undefined) {
    const judged = judgeStatus(parsed, { exitCode, timedOut: false });
    status = judged.status;
    reason = judged.reason ?? (judged.status === parsed.status ? parsed.reason : undefined);
  }
  const report = {
    runner: parsed.runner,
    status,
    executed: parsed.executed,
    passed: parsed.passed,
    failed: parsed.failed,
    skipped: parsed.skipped,
    failures: parsed.failures,
    ...(reason ? { reason } : {}),
    tried,
  };
  stdout.write(options.json ? `${JSON.stringify(report)}\n` : summary(parsed, status, reason, tried));
  return 0;
}

function summary(
  parsed: ParsedTests,
  status: VerifyStatus,
  reason: string | undefined,
  tried: ParserTrial[],
): string {
  const lines = [
    `${status}  ${parsed.runner}: ${parsed.executed} executed (${parsed.passed} passed, ${parsed.failed} failed), ${parsed.skipped} skipped`,
  ];
  if (reason) lines.push(`  ${reason}`);
  const shown = parsed.failures.slice(0, 20);
  for (const f of shown) {
    lines.push(`  ✗ ${f.name}${f.file && f.file !== f.name ? ` (${f.file})` : ""}`);
    const first = f.message.split("\n")[0];
    if (first) lines.push(`      ${first}`);
  }
  if (parsed.failures.length > shown.length)
    lines.push(`  … and ${parsed.failures.length - shown.length} more failures`);
  // Which parsers were asked and why each declined, so that a new format can be reported in one command.
  lines.push("parsers tried:");
  for (const t of tried) lines.push(`  ${t.runner}: ${t.outcome} — ${t.why}`);
  return `${lines.join("\n")}\n`;
}
