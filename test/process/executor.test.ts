import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { stripVTControlCharacters } from "node:util";
import { type ExecOptions, type ExecResult, execCommand } from "../../src/process/executor.js";
import { OutputTail } from "../../src/process/output-tail.js";
import { srcModule } from "../support/src-module.js";

const work = mkdtempSync(join(tmpdir(), "gantry-exec-"));
after(() => rmSync(work, { recursive: true, force: true }));

function run(command: string, extra: Partial<ExecOptions> = {}): Promise<ExecResult> {
  return execCommand({ command, cwd: work, timeoutMs: 10_000, killGraceMs: 500, ...extra });
}

async function timed<T>(promise: Promise<T>): Promise<{ value: T; seconds: number }> {
  const start = performance.now();
  const value = await promise;
  return { value, seconds: (performance.now() - start) / 1000 };
}

/** A `sleep` whose argument is unique to this call, so its process can be found by its argv. */
let markers = 0;
function marker(): string {
  markers += 1;
  return `300.${process.pid}${String(markers).padStart(3, "0")}`;
}

interface Proc {
  pid: number;
  pgid: number;
  cmdline: string;
}

/** Live (not zombie) processes, read from /proc. */
function processes(): Proc[] {
  const out: Proc[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid pgrp ... — comm may hold spaces and parentheses, so split after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z" || fields[0] === "X") continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      out.push({ pid: Number(entry), pgid: Number(fields[2]), cmdline });
    } catch {
      // Gone while we looked.
    }
  }
  return out;
}

const withMarker = (mark: string) => processes().filter((p) => p.cmdline.includes(mark));
const inGroup = (pgid: number) => processes().filter((p) => p.pgid === pgid);

/** Killed processes leave /proc a moment after the signal; poll up to a generous bound. */
async function eventuallyNone(find: () => Proc[], what: string): Promise<void> {
  const deadline = Date.now() + 3000;
  let left = find();
  while (left.length > 0 && Date.now() < deadline) {
    await delay(25);
    left = find();
  }
  assert.deepEqual(
    left.map((p) => `${p.pid} ${p.cmdline}`),
    [],
    `${what}: processes left behind`,
  );
}

/** The shell is the group leader, so `$$` printed first is the process group id. */
function pgidOf(result: ExecResult): number {
  const match = /^pgid:(\d+)$/m.exec(result.output);
  assert.ok(match, `no pgid line in ${JSON.stringify(result.output.slice(0, 200))}`);
  return Number(match[1]);
}

describe("execCommand: output", () => {
  test("a command printing ~50 MB finishes and keeps only a bounded tail", async () => {
    const lines = 6_500_000;
    let expectedBytes = 0;
    for (let digits = 1, from = 1; from <= lines; digits += 1, from *= 10) {
      const to = Math.min(lines, from * 10 - 1);
      expectedBytes += (to - from + 1) * (digits + 1);
    }
    assert.ok(expectedBytes > 50_000_000);
    const tailBytes = 64 * 1024;
    let seen = 0;
    const { value: result, seconds } = await timed(
      run(`seq 1 ${lines}`, { tailBytes, timeoutMs: 60_000, onOutput: (chunk) => (seen += chunk.length) }),
    );
    assert.equal(result.exitCode, 0);
    assert.equal(result.timedOut, false);
    assert.equal(result.totalBytes, expectedBytes);
    assert.equal(seen, expectedBytes);
    assert.ok(result.output.length <= tailBytes, `kept ${result.output.length} > ${tailBytes}`);
    assert.ok(result.output.length > tailBytes - 4096, "the tail is not needlessly short");
    assert.ok(result.output.endsWith(`\n${lines}\n`));
    // The tail starts at a whole line and is the consecutive end of the stream.
    const kept = result.output.split("\n").filter(Boolean).map(Number);
    assert.equal(kept.at(-1), lines);
    assert.deepEqual(
      kept,
      kept.map((_, i) => lines - kept.length + 1 + i),
    );
    assert.ok(seconds < 60);
  });

  test("stdout and stderr both reach the tail; stderr also has its own", async () => {
    const result = await run("echo out; echo err >&2; echo out2");
    assert.equal(result.exitCode, 0);
    assert.match(result.output, /out\n/);
    assert.match(result.output, /err\n/);
    assert.match(result.output, /out2\n/);
    assert.equal(result.stderrTail, "err\n");
    assert.equal(result.totalBytes, "out\nerr\nout2\n".length);
  });

  test("multi-byte characters split across pipe chunks survive, and totalBytes counts bytes", async () => {
    const piece = "é🙂ß—";
    const text = `${piece.repeat(100_000)}\n`;
    const result = await run("cat", { input: text, tailBytes: 4 * 1024 * 1024 });
    assert.equal(result.exitCode, 0);
    assert.equal(result.output.includes("\uFFFD"), false, "a character was cut in two");
    assert.equal(result.output, text);
    assert.equal(result.totalBytes, Buffer.byteLength(text));
  });
});

describe("execCommand: timeout and process groups", () => {
  test("a hanging command is killed at its timeout and no process of its group is left", async () => {
    const mark = marker();
    const { value: result, seconds } = await timed(
      run(`echo pgid:$$; sleep ${mark} & sleep ${mark} & sleep ${mark}; wait`, { timeoutMs: 500 }),
    );
    assert.equal(result.timedOut, true);
    assert.equal(result.aborted, false);
    assert.equal(result.exitCode, null);
    assert.equal(result.signal, "SIGTERM");
    assert.equal(result.forcefullyTerminated, false, "it stopped on SIGTERM");
    assert.ok(seconds < 5, `took ${seconds}s`);
    const pgid = pgidOf(result);
    await eventuallyNone(() => inGroup(pgid), "process group");
    await eventuallyNone(() => withMarker(mark), "marked sleeps");
  });

  test("a group that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    const mark = marker();
    const { value: result, seconds } = await timed(
      run(`trap '' TERM; echo pgid:$$; sleep ${mark} & sleep ${mark}; wait`, {
        timeoutMs: 300,
        killGraceMs: 300,
      }),
    );
    assert.equal(result.timedOut, true);
    assert.equal(result.signal, "SIGKILL");
    assert.equal(result.forcefullyTerminated, true);
    assert.ok(seconds < 5, `took ${seconds}s`);
    await eventuallyNone(() => inGroup(pgidOf(result)), "process group");
    await eventuallyNone(() => withMarker(mark), "marked sleeps");
  });

  test("after SIGTERM the rest of the group gets its grace period to clean up, even once the shell is gone", async () => {
    const flag = join(work, `cleaned-${marker()}`);
    const inner = `trap 'sleep 0.2; echo cleaned > ${flag}; exit 0' TERM; while :; do sleep 0.05; done`;
    const result = await run(`echo pgid:$$; sh -c "${inner}"; echo unreachable`, {
      timeoutMs: 300,
      killGraceMs: 3000,
    });
    assert.equal(result.timedOut, true);
    assert.equal(existsSync(flag), true, "the child was killed before its SIGTERM handler finished");
    assert.doesNotMatch(result.output, /unreachable/);
    await eventuallyNone(() => inGroup(pgidOf(result)), "process group");
  });

  test("a grandchild that would outlive the command is gone when the call returns", async () => {
    const mark = marker();
    const { value: result, seconds } = await timed(run(`echo pgid:$$; (sleep ${mark} &) ; echo done`));
    assert.equal(result.exitCode, 0);
    assert.equal(result.timedOut, false);
    assert.match(result.output, /done\n$/);
    assert.ok(seconds < 3, `took ${seconds}s`);
    await eventuallyNone(() => withMarker(mark), "orphaned grandchild");
    await eventuallyNone(() => inGroup(pgidOf(result)), "process group");
  });

  test("a nohup'd background process with its output redirected is gone too", async () => {
    const mark = marker();
    const { value: result, seconds } = await timed(
      run(`echo pgid:$$; nohup sleep ${mark} >/dev/null 2>&1 & echo started`),
    );
    assert.equal(result.exitCode, 0);
    assert.ok(seconds < 3, `took ${seconds}s`);
    await eventuallyNone(() => withMarker(mark), "nohup'd process");
  });

  test("a background process of the group holding stdout open does not make the call wait", async () => {
    const mark = marker();
    const { value: result, seconds } = await timed(run(`sleep ${mark} & echo started`));
    assert.equal(result.exitCode, 0);
    assert.equal(result.output, "started\n");
    assert.ok(seconds < 2, `took ${seconds}s`);
    await eventuallyNone(() => withMarker(mark), "background sleep");
  });

  test("a process that left the group (setsid) but holds stdout delays the call only briefly", async () => {
    const mark = marker();
    try {
      const { value: result, seconds } = await timed(run(`setsid sleep ${mark} & sleep 0.3; echo started`));
      assert.equal(result.exitCode, 0);
      assert.match(result.output, /started\n/);
      assert.equal(result.timedOut, false);
      assert.ok(seconds < 3.5, `took ${seconds}s`);
      assert.equal(
        withMarker(mark).length,
        1,
        "the escaped process is still there: the scenario really happened",
      );
    } finally {
      // Out of our group by its own choice: out of the executor's reach, so the test cleans up.
      for (const p of withMarker(mark)) process.kill(p.pid, "SIGKILL");
    }
  });
});

describe("execCommand: abort", () => {
  test("aborting kills the whole group and reports aborted", async () => {
    const mark = marker();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const { value: result, seconds } = await timed(
      run(`echo pgid:$$; sleep ${mark} & sleep ${mark}; wait`, {
        signal: controller.signal,
        timeoutMs: 30_000,
      }),
    );
    assert.equal(result.aborted, true);
    assert.equal(result.timedOut, false);
    assert.equal(result.exitCode, null);
    assert.ok(seconds < 5, `took ${seconds}s`);
    await eventuallyNone(() => inGroup(pgidOf(result)), "process group");
    await eventuallyNone(() => withMarker(mark), "marked sleeps");
  });

  test("an already aborted signal stops the command at once", async () => {
    const mark = marker();
    const { value: result, seconds } = await timed(
      run(`sleep ${mark}`, { signal: AbortSignal.abort(), timeoutMs: 30_000 }),
    );
    assert.equal(result.aborted, true);
    assert.notEqual(result.exitCode, 0);
    assert.ok(seconds < 3, `took ${seconds}s`);
    await eventuallyNone(() => withMarker(mark), "marked sleep");
  });
});

describe("execCommand: standard input", () => {
  test("a 1 MB input arrives whole", async () => {
    const line = "0123456789abcdef ".repeat(4);
    let input = "";
    for (let i = 0; input.length < 1024 * 1024; i += 1) input += `${i} ${line}\n`;
    const counted = await run("wc -c", { input });
    assert.equal(counted.exitCode, 0);
    assert.equal(counted.output.trim(), String(Buffer.byteLength(input)));
    const echoed = await run("cat", { input, tailBytes: 2 * 1024 * 1024 });
    assert.equal(echoed.output, input);
  });

  test("a command that ignores its (large) input does not crash us", async () => {
    const input = "x".repeat(8 * 1024 * 1024);
    const quick = await run("exit 3", { input });
    assert.equal(quick.exitCode, 3);
    const slow = await run("sleep 0.1; echo ignored", { input });
    assert.equal(slow.exitCode, 0);
    assert.equal(slow.output, "ignored\n");
  });

  test("without input, standard input is closed (a reader sees end of file)", async () => {
    const result = await run("cat; echo eof");
    assert.equal(result.exitCode, 0);
    assert.equal(result.output, "eof\n");
  });
});

describe("execCommand: exit status", () => {
  test("exit codes are reported as they are", async () => {
    for (const code of [0, 1, 7, 255]) {
      const result = await run(`exit ${code}`);
      assert.equal(result.exitCode, code);
      assert.equal(result.signal, null);
      assert.equal(result.timedOut, false);
      assert.equal(result.aborted, false);
      assert.equal(result.command, `exit ${code}`);
      assert.ok(result.durationMs >= 0);
    }
  });

  test("a command that does not exist exits with 127", async () => {
    const result = await run("gantry-no-such-command-xyz --flag");
    assert.equal(result.exitCode, 127);
    assert.match(result.stderrTail, /not found/);
    assert.equal(result.spawnError, undefined);
  });

  test("death by a signal is reported as the signal", async () => {
    const killed = await run("kill -KILL $$");
    assert.equal(killed.exitCode, null);
    assert.equal(killed.signal, "SIGKILL");
    assert.equal(killed.timedOut, false);
    const termed = await run("kill -TERM $$");
    assert.equal(termed.signal, "SIGTERM");
  });

  test("environment and working directory are the ones given", async () => {
    const result = await run('printf "%s %s" "$GANTRY_X" "$(pwd)"', {
      env: { PATH: process.env.PATH, GANTRY_X: "y" },
    });
    assert.equal(result.output, `y ${work}`);
  });

  test("a working directory that does not exist is a spawn error, not a hang", async () => {
    const result = await run("true", { cwd: join(work, "missing") });
    assert.equal(result.exitCode, null);
    assert.equal(result.spawnError, `working directory does not exist: ${join(work, "missing")}`);
  });

  test("a program that cannot be started is a spawn error naming it", async () => {
    const result = await run("true", { wrapper: [join(work, "no-such-wrapper")] });
    assert.equal(result.exitCode, null);
    assert.match(result.spawnError ?? "", /no-such-wrapper ENOENT/);
  });

  test("an onOutput callback that throws does not take the process down", async () => {
    const result = await run("echo a; echo b", {
      onOutput: () => {
        throw new Error("listener bug");
      },
    });
    assert.equal(result.exitCode, 0);
    assert.equal(result.output, "a\nb\n");
  });

  test("a timeout too large for a timer does not fire at once", async () => {
    const result = await run("sleep 0.2; echo ok", { timeoutMs: 2 ** 32 });
    assert.equal(result.timedOut, false);
    assert.equal(result.output, "ok\n");
  });

  test("a bad timeout is rejected with what was expected", async () => {
    await assert.rejects(run("true", { timeoutMs: Number.NaN }), /timeoutMs.*expected a positive number/);
    await assert.rejects(run("true", { timeoutMs: 0 }), /timeoutMs/);
  });
});

describe("execCommand: GANTRY_DEBUG", () => {
  /** A node that runs `command` (default `echo traced`) through execCommand, with `env` as its environment. */
  function traced(env: NodeJS.ProcessEnv, command = "echo traced"): { stdout: string; stderr: string } {
    const executor = srcModule("process/executor");
    const script = `const { execCommand } = await import(${JSON.stringify(executor)});
const r = await execCommand({ command: ${JSON.stringify(command)}, cwd: ${JSON.stringify(work)}, timeoutMs: 10000 });
process.stdout.write(r.output);`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env,
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(child.status, 0, child.stderr);
    return { stdout: child.stdout, stderr: stripVTControlCharacters(child.stderr) };
  }

  test("set, every command and its end are traced on stderr; unset, nothing is", () => {
    const { GANTRY_DEBUG: _, ...quiet } = process.env;
    const on = traced({ ...quiet, GANTRY_DEBUG: "1" });
    assert.equal(on.stdout, "traced\n", "the command's output is not changed by the trace");
    assert.match(on.stderr, /\$ \/bin\/sh -c 'echo traced'/);
    assert.match(on.stderr, /done in/);
    const off = traced(quiet);
    assert.equal(off.stdout, "traced\n");
    assert.equal(off.stderr, "");
  });

  test("the trace redacts the environment's credentials and leaves the command's output out", () => {
    const { GANTRY_DEBUG: _, ...quiet } = process.env;
    const secret = "sk-test-0123456789";
    const on = traced(
      { ...quiet, GANTRY_DEBUG: "1", SERVICE_API_KEY: secret },
      `echo ${secret} printed-line`,
    );
    assert.equal(on.stdout, `${secret} printed-line\n`, "the command's own output is unchanged");
    assert.match(on.stderr, /\$ \/bin\/sh -c 'echo \[redacted\] printed-line'/);
    assert.ok(!on.stderr.includes(secret), on.stderr);
    assert.ok(!on.stderr.includes("printed-line\n"), "an output line is not traced");
  });
});

describe("OutputTail", () => {
  test("keeps at most the limit, starting at a line boundary when one is near", () => {
    const tail = new OutputTail(100);
    for (let i = 0; i < 1000; i += 1) tail.push(`line ${i}\n`);
    const text = tail.text();
    assert.ok(text.length <= 100);
    assert.ok(text.endsWith("line 999\n"));
    assert.match(text, /^line \d+\n/);
    assert.equal(tail.totalBytes, Array.from({ length: 1000 }, (_, i) => `line ${i}\n`).join("").length);
  });

  test("a single chunk larger than the limit is cut", () => {
    const tail = new OutputTail(10);
    tail.push("x".repeat(1000));
    assert.equal(tail.text(), "x".repeat(10));
    assert.equal(tail.totalBytes, 1000);
  });

  test("never cuts a surrogate pair in two", () => {
    const tail = new OutputTail(5);
    tail.push("🙂🙂🙂🙂🙂");
    const text = tail.text();
    assert.ok(text.length <= 5);
    assert.equal(text, "🙂🙂");
  });

  test("counts bytes when told them", () => {
    const tail = new OutputTail(100);
    tail.push("é", 2);
    assert.equal(tail.totalBytes, 2);
    assert.equal(tail.text(), "é");
  });
});
