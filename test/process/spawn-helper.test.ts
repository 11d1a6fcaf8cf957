import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { after, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { createSpawnHelperPool, type SpawnHelperPool } from "../../src/process/spawn-helper.js";
import { type HelperShell, helperShell } from "../../src/process/spawn-helper-shell.js";
import { marked } from "../support/marked-processes.js";

const SHELLS: [string, HelperShell | undefined][] = [
  ["bash with job control", helperShell()?.jobControl ? helperShell() : undefined],
  ["sh with setsid", { path: "/bin/sh", args: [], jobControl: false }],
];

/** Words no shell may read as anything but themselves. */
const HOSTILE = [
  "a b",
  "it's",
  "new\nline",
  "$(touch /tmp/x)",
  "`id`",
  "\\",
  '"',
  "",
  "é ✓",
  "-c",
  "--",
  "'\"'\"'",
];

for (const [name, shell] of SHELLS) {
  describe(`the spawn helper (${name})`, { skip: shell === undefined && "no bash here" }, () => {
    const pools: SpawnHelperPool[] = [];
    const pool = (env: NodeJS.ProcessEnv = process.env) => {
      const p = createSpawnHelperPool(shell as HelperShell, env);
      pools.push(p);
      return p;
    };
    after(() => {
      for (const p of pools) p.close();
    });

    it("refuses a request whose words are not all text at once, and goes on serving", async () => {
      const p = pool();
      const started = Date.now();
      await assert.rejects(
        p.run({ argv: ["echo", undefined as unknown as string], cwd: "/", timeoutMs: 60_000 }),
        /a request's words must be text \(word 2 is not\)/,
      );
      await assert.rejects(p.run({ argv: [], cwd: "/", timeoutMs: 60_000 }), /must be text/);
      assert.ok(Date.now() - started < 5_000, "not at the reply's deadline");
      const next = await p.run({ argv: ["echo", "ok"], cwd: "/", timeoutMs: 10_000 });
      assert.equal(next.stdout, "ok\n");
    });

    it("passes every argument, environment addition and working directory exactly, output and exit code apart", async () => {
      const p = pool();
      const r = await p.run({
        argv: [
          "/bin/sh",
          "-c",
          'printf "%s|" "$@" "$EXTRA" "$PWD"; printf "oops" >&2; exit 7',
          "gantry-git",
          ...HOSTILE,
        ],
        cwd: tmpdir(),
        env: { EXTRA: "x'y\nz $(id)" },
        timeoutMs: 10_000,
      });
      assert.equal(r.stdout, `${[...HOSTILE, "x'y\nz $(id)", tmpdir()].join("|")}|`);
      assert.equal(r.stderr, "oops");
      assert.equal(r.code, 7);
      assert.equal(r.timedOut, false);
      const plain = await p.run({ argv: ["printf", "a\\0b\\n"], cwd: "/", timeoutMs: 10_000 });
      assert.deepEqual([plain.stdout, plain.stderr, plain.code], ["a\0b\n", "", 0]);
      const missing = await p.run({ argv: ["true"], cwd: "/no/such/dir", timeoutMs: 10_000 });
      assert.equal(missing.code, 126);
    });

    it("runs requests side by side on at most its size of helpers, each with its own reply", async () => {
      const p = pool();
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          p.run({ argv: ["/bin/sh", "-c", `sleep 0.0${i}; echo ${i}`], cwd: "/", timeoutMs: 10_000 }),
        ),
      );
      assert.deepEqual(
        replies.map((r) => r.stdout),
        Array.from({ length: 8 }, (_, i) => `${i}\n`),
      );
      assert.ok(p.started <= 2, `${p.started} helpers`);
    });

    it("widened, runs that many side by side: a request waiting behind busy helpers starts at once", async () => {
      const p = pool();
      const slow = () => p.run({ argv: ["sleep", "1"], cwd: "/", timeoutMs: 10_000 });
      const busy = [slow(), slow()];
      const at = performance.now();
      const quick = p.run({ argv: ["echo", "q"], cwd: "/", timeoutMs: 10_000 });
      p.widen(3);
      assert.equal((await quick).stdout, "q\n");
      assert.ok(performance.now() - at < 900, "did not wait for a sleep to end");
      await Promise.all(busy);
      assert.equal(p.started, 3);
      p.widen(1);
      await Promise.all(
        Array.from({ length: 6 }, () => p.run({ argv: ["true"], cwd: "/", timeoutMs: 10_000 })),
      );
      assert.equal(p.started, 3, "never shrinks, and starts no more than its size");
    });

    it("kills a child past its timeout with its whole group, and the helper goes on", async () => {
      const p = pool();
      const mark = `GANTRY_HELPER_TEST=${process.pid}-${Math.random()}`;
      const [key = "", value = ""] = mark.split("=");
      const started = Date.now();
      const r = await p.run({
        argv: ["/bin/sh", "-c", "sleep 30 & sleep 30"],
        cwd: "/",
        env: { [key]: value },
        timeoutMs: 300,
      });
      assert.equal(r.timedOut, true);
      assert.notEqual(r.code, 0);
      assert.ok(Date.now() - started < 5_000);
      await delay(100);
      assert.deepEqual(marked(mark), [], "the background sleep went with its group");
      const next = await p.run({ argv: ["echo", "ok"], cwd: "/", timeoutMs: 10_000 });
      assert.equal(next.stdout, "ok\n");
    });

    it("dies with its owner: nothing it started outlives a SIGKILL of the process that made it", async () => {
      const mark = `GANTRY_HELPER_OWNER=${process.pid}-${Math.random()}`;
      // The test runs as TypeScript through tsx, or compiled to JavaScript by npm test: import the same kind.
      const compiled = import.meta.url.endsWith(".js");
      const url = new URL(`../../src/process/spawn-helper.${compiled ? "js" : "ts"}`, import.meta.url).href;
      const script = [
        `const { createSpawnHelperPool } = await import(${JSON.stringify(url)});`,
        `const p = createSpawnHelperPool(${JSON.stringify(shell)}, process.env);`,
        `await p.run({ argv: ["true"], cwd: "/", timeoutMs: 5000 });`,
        `void p.run({ argv: ["sleep", "30"], cwd: "/", timeoutMs: 60000 });`,
        "setTimeout(() => console.log('ready'), 200); setInterval(() => {}, 1000);",
      ].join("\n");
      const [key = "", value = ""] = mark.split("=");
      const owner = spawn(
        process.execPath,
        [...(compiled ? [] : ["--import", "tsx"]), "--input-type=module", "-e", script],
        {
          env: { ...process.env, [key]: value },
          stdio: ["ignore", "pipe", "inherit"],
        },
      );
      await new Promise<void>((resolve) => owner.stdout.once("data", () => resolve()));
      assert.ok(
        marked(mark).some((c) => c.startsWith("sleep 30")),
        "the child runs",
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
}
