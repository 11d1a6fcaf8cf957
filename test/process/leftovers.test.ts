import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { after, describe, it } from "node:test";
import { killMarkedProcesses } from "../../src/process/leftovers.js";

const started: ChildProcess[] = [];
after(() => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** A sleeping process in a session of its own, with `env` as its whole environment. */
function sleeper(env: Record<string, string>): ChildProcess {
  const child = spawn("/bin/sleep", ["30"], { env, detached: true, stdio: "ignore" });
  started.push(child);
  return child;
}

const ended = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.signalCode);
    else child.once("exit", (_code, signal) => resolve(signal));
  });
const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

describe("killMarkedProcesses", { skip: process.platform !== "linux" && "reads /proc" }, () => {
  it("kills the processes whose environment holds the marker, wherever it is in it, and only those", async () => {
    const id = `test-${process.pid}-${Date.now()}`;
    const first = sleeper({ GANTRY_SESSION_ID: id, PATH: "/usr/bin:/bin" });
    // Past the 64 KB read buffer, so the marker is found only if the whole environment is read.
    const late = sleeper({ BIG1: "x".repeat(100_000), BIG2: "y".repeat(100_000), GANTRY_SESSION_ID: id });
    const other = sleeper({ GANTRY_SESSION_ID: `${id}-other`, PATH: "/usr/bin:/bin" });
    const prefixOnly = sleeper({ XGANTRY_SESSION_ID: id, GANTRY_SESSION_ID_X: id });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(killMarkedProcesses("GANTRY_SESSION_ID", id), 2);
    assert.equal(await ended(first), "SIGKILL");
    assert.equal(await ended(late), "SIGKILL");
    assert.ok(alive(other), "another session's process is left alone");
    assert.ok(alive(prefixOnly), "a variable that only contains the name is not the marker");
    assert.equal(killMarkedProcesses("GANTRY_SESSION_ID", `${id}-other`), 1);
    assert.equal(await ended(other), "SIGKILL");
  });
});
