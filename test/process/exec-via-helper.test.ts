import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { createCommandHelperPool } from "../../src/process/command-helper.js";
import { environmentChange, execViaHelper } from "../../src/process/exec-via-helper.js";
import { type ExecOptions, execCommand } from "../../src/process/executor.js";
import { marked } from "../support/marked-processes.js";

const hasBash = existsSync("/bin/bash");

describe("environmentChange", () => {
  it("names what is added, changed and removed, and gives up on names bash cannot export", () => {
    const base = { A: "1", B: "2", GONE: "x" };
    assert.deepEqual(environmentChange(base, { A: "1", B: "3", NEW: "n" }), {
      set: { B: "3", NEW: "n" },
      unset: ["GONE"],
    });
    assert.equal(environmentChange(base, { ...base, "odd.name": "1" }), undefined);
    assert.equal(environmentChange({ ...base, "odd-name": "1" }, base), undefined);
  });
});

describe("commands started by the command helper", { skip: !hasBash && "no bash here" }, () => {
  const pool = createCommandHelperPool(process.env);
  after(() => pool?.close());
  const run = (command: string, options: Partial<ExecOptions> = {}) => {
    const full: ExecOptions = { command, cwd: tmpdir(), timeoutMs: 10_000, ...options };
    const result =
      pool && execViaHelper(pool, full, options.killGraceMs ?? 2000, options.tailBytes ?? 1 << 20);
    assert.ok(result, "the helper takes the command");
    return result;
  };

  it("gives the command its input, directory and environment, and returns its output and exit code", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-cmd-"));
    try {
      const env = { ...process.env, ODD: "it's a\nnew $(line)", HOME: undefined };
      const r = await run('cat; echo "$ODD"; [ -n "$HOME" ] || echo unset; pwd; echo err >&2; exit 7', {
        cwd: dir,
        input: "in put\n",
        env,
      });
      assert.equal(r.exitCode, 7);
      assert.equal(r.output, `in put\nit's a\nnew $(line)\nunset\n${dir}\nerr\n`);
      assert.equal(r.totalBytes, Buffer.byteLength(r.output));
      assert.match(r.stderrTail, /err\n$/);
      assert.equal(r.spawnError, undefined);
      assert.deepEqual(readdirSync(pool?.directory ?? ""), [], "its files are removed once read");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps the tail of long output, from a line's start and never inside a character", async () => {
    const r = await run('i=0; while [ $i -lt 3000 ]; do echo "line é $i"; i=$((i + 1)); done', {
      tailBytes: 1000,
    });
    assert.ok(r.output.length <= 1000, `${r.output.length}`);
    assert.match(r.output, /^line é \d+\n/);
    assert.match(r.output, /line é 2999\n$/);
    assert.ok(r.totalBytes > 30_000);
  });

  it("bounds the output file on disk: past its limit the tail is kept in memory and the bytes read are freed", async () => {
    process.env.GANTRY_OUTPUT_FILE_MAX_BYTES = String(1_000_000);
    let largest = 0;
    const watch = setInterval(() => {
      for (const name of readdirSync(pool?.directory ?? ""))
        largest = Math.max(largest, statSync(join(pool?.directory ?? "", name)).blocks * 512);
    }, 50);
    try {
      const r = await run(
        "i=0; while [ $i -lt 6 ]; do head -c 600000 /dev/zero | tr '\\0' x; echo; sleep 0.6; i=$((i + 1)); done; echo END",
        { tailBytes: 700_000 },
      );
      assert.equal(r.exitCode, 0);
      assert.equal(r.totalBytes, 6 * 600_001 + 4, "every byte counted");
      const end = `${"x".repeat(600_000)}\nEND\n`;
      assert.ok(r.output.endsWith(end) && r.output.length <= 700_000, "the tail is whole across an emptying");
      assert.ok(/^x+\n/.test(r.output.slice(0, r.output.length - end.length)), "and starts at a line");
      assert.ok(
        largest > 0 && largest < 1_900_000,
        `the file took ${largest} bytes of disk for 3.6 MB written`,
      );
    } finally {
      clearInterval(watch);
      delete process.env.GANTRY_OUTPUT_FILE_MAX_BYTES;
    }
  });

  it("kills the whole group past the timeout after its grace period, and reports the signal", async () => {
    const mark = `GANTRY_CMD_TEST=${process.pid}-${Math.random()}`;
    const [key = "", value = ""] = mark.split("=");
    const started = Date.now();
    const r = await run("trap '' TERM; sleep 30 & sleep 30", {
      timeoutMs: 300,
      killGraceMs: 300,
      env: { ...process.env, [key]: value },
    });
    assert.equal(r.timedOut, true);
    assert.equal(r.exitCode, null);
    assert.equal(r.signal, "SIGKILL");
    assert.ok(Date.now() - started < 5_000);
    await delay(100);
    assert.deepEqual(marked(mark), [], "the background sleep went with its group");
  });

  it("an abort stops the command like the timeout, and a missing directory is a spawn error", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await run("sleep 30", { signal: controller.signal });
    assert.equal(r.aborted, true);
    assert.equal(r.signal, "SIGTERM");
    const missing = await run("true", { cwd: join(tmpdir(), "gantry-no-such-dir-xyz") });
    assert.match(missing.spawnError ?? "", /does not exist/);
    assert.equal(missing.exitCode, null);
  });

  it("a process a command left behind cannot write into a later command's output", async () => {
    const first = await run("setsid sh -c 'sleep 0.3; echo INJECTED' </dev/null & echo first");
    assert.equal(first.output, "first\n");
    const second = await run("sleep 0.6; echo second");
    assert.equal(second.output, "second\n");
  });

  it("execCommand takes it with viaHelper, and without the helper's process for each command", async () => {
    const r = await execCommand({
      command: "echo $$; echo $PPID",
      cwd: tmpdir(),
      timeoutMs: 5000,
      viaHelper: true,
    });
    const [shell, parent] = r.output.trim().split("\n").map(Number);
    assert.equal(r.exitCode, 0);
    assert.notEqual(parent, process.pid, "the shell's parent is a helper, not this process");
    assert.ok(shell && parent && shell !== parent);
  });

  it("dies with its owner: a running command does not outlive a SIGKILL of the process that started it", async () => {
    const mark = `GANTRY_CMD_OWNER=${process.pid}-${Math.random()}`;
    const compiled = import.meta.url.endsWith(".js");
    const url = new URL(`../../src/process/executor.${compiled ? "js" : "ts"}`, import.meta.url).href;
    const script = [
      `const { execCommand } = await import(${JSON.stringify(url)});`,
      `void execCommand({ command: "sleep 30", cwd: "/", timeoutMs: 60000, viaHelper: true });`,
      "setTimeout(() => console.log('ready'), 300); setInterval(() => {}, 1000);",
    ].join("\n");
    const [key = "", value = ""] = mark.split("=");
    const owner = spawn(
      process.execPath,
      [...(compiled ? [] : ["--import", "tsx"]), "--input-type=module", "-e", script],
      { env: { ...process.env, [key]: value }, stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => owner.stdout.once("data", () => resolve()));
    assert.ok(
      marked(mark).some((c) => c.startsWith("sleep 30")),
      "the command runs",
    );
    owner.kill("SIGKILL");
    let left = marked(mark);
    for (let i = 0; i < 40 && left.length > 0; i++) {
      await delay(50);
      left = marked(mark);
    }
    assert.deepEqual(left, []);
  });
});
