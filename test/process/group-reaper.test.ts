import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { srcModule } from "../support/src-module.js";

/** Alive and not a zombie (the orphans' new parent may reap them late). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Waits until `check` holds or `ms` pass; returns whether it held. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await sleep(50);
  }
  return check();
}

describe("the group reaper", () => {
  test("a command's whole group (a setsid child aside) dies with a gantry killed by SIGKILL", async () => {
    const work = mkdtempSync(join(tmpdir(), "gantry-reaper-"));
    const executor = srcModule("process/executor");
    // The command: a shell with a background child in its group, both sleeping far past the test.
    const command = `sleep 120 & echo $! > ${join(work, "child")}; echo $$ > ${join(work, "shell")}; wait`;
    const script = `const { execCommand } = await import(${JSON.stringify(executor)});
await execCommand({ command: ${JSON.stringify(command)}, cwd: ${JSON.stringify(work)}, timeoutMs: 600000 });`;
    const gantry = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: "ignore",
    });
    const pidOf = (name: string) => Number(readFileSync(join(work, name), "utf8").trim());
    try {
      assert.ok(
        await until(() => existsSync(join(work, "child")) && existsSync(join(work, "shell")), 30_000),
        "the command started",
      );
      // Listed with the reaper once execa's spawn returns: a SIGKILL in those few statements is the one
      // window left (the next run's leftover check covers it); the test kills gantry well after it.
      await sleep(1_000);
      const [child, shell] = [pidOf("child"), pidOf("shell")];
      assert.ok(running(child) && running(shell));
      gantry.kill("SIGKILL");
      await new Promise((resolve) => gantry.once("exit", resolve));
      const gone = await until(() => !running(child) && !running(shell), 5_000);
      assert.ok(
        gone,
        `the group outlived gantry: ${[child, shell].map((p) => (running(p) ? readFileSync(`/proc/${p}/stat`, "utf8") : `${p} gone`)).join(" / ")}`,
      );
    } finally {
      gantry.kill("SIGKILL");
      for (const name of ["child", "shell"])
        if (existsSync(join(work, name)))
          try {
            process.kill(pidOf(name), "SIGKILL");
          } catch {
            // gone
          }
    }
  });

  test("a gantry that ends normally leaves no reaper behind", async () => {
    const executor = srcModule("process/executor");
    // Prints its own reaper's pid (the child whose command line names it) before it ends.
    const script = `const { execCommand } = await import(${JSON.stringify(executor)});
const { readdirSync, readFileSync } = await import("node:fs");
await execCommand({ command: "true", cwd: "/", timeoutMs: 10000 });
for (const name of readdirSync("/proc").filter((n) => /^\\d+$/.test(n))) {
  try {
    const stat = readFileSync("/proc/" + name + "/stat", "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid === process.pid && readFileSync("/proc/" + name + "/cmdline", "utf8").includes("gantry-reaper")) console.log(name);
  } catch {}
}`;
    const gantry = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    gantry.stdout.on("data", (chunk) => {
      out += chunk;
    });
    assert.equal(await new Promise((resolve) => gantry.once("exit", resolve)), 0);
    const reaper = Number(out.trim());
    assert.ok(reaper > 0, `gantry had a reaper: ${JSON.stringify(out)}`);
    assert.ok(await until(() => !running(reaper), 5_000), "the reaper outlived its gantry");
  });
});
