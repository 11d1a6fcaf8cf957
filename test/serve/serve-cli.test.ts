import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { getPriority, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, it } from "node:test";
import { devicesAddCommand, devicesRevokeCommand } from "../../src/cli/devices.js";
import { serveCommand } from "../../src/cli/serve.js";
import { findOnPath } from "../../src/process/find-executable.js";
import { CHRT_DIRS, schedulingPolicy } from "../../src/serve/cpu-yield.js";
import { readRegistry, registryFile } from "../../src/serve/devices/registry.js";
import { CLI, cliEnvironment } from "../e2e/harness.js";
import { deviceKeys } from "./device-client.js";
import { call } from "./http.js";

/** Drops what the commands print; returns the undo. */
function silence(): () => void {
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  return () => {
    process.stdout.write = out;
    process.stderr.write = err;
  };
}

/** Niceness (field 19) and scheduling policy (field 41; 5 is SCHED_IDLE, 0 the normal one) of every thread. */
function priorities(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((task) => {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
    return `nice ${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]} policy ${schedulingPolicy(stat)}`;
  });
}

const hasChrt = () => findOnPath("chrt", CHRT_DIRS) !== undefined;

describe("gantry serve and gantry devices", () => {
  it("serve prints a URL with the token, keeps it 0600 while it runs, and removes it on Ctrl-C", async () => {
    const root = mkdtempSync(join(tmpdir(), "gantry-serve-cli-"));
    // A `chrt` planted first on the PATH (as a project's node_modules/.bin is under npm) is never run.
    const planted = join(root, "bin");
    mkdirSync(planted);
    writeFileSync(join(planted, "chrt"), `#!/bin/sh\ntouch "${join(root, "planted-chrt-ran")}"\n`, {
      mode: 0o755,
    });
    const env = cliEnvironment();
    const child = spawn(process.execPath, [CLI, "serve", "--dir", root], {
      env: { ...env, PATH: `${planted}${delimiter}${env.PATH ?? ""}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Started beside it: `--nice <n>` keeps the normal policy at that niceness.
    // (A project of its own: each server writes its token to its project's .gantry/serve/token.)
    const nicedRoot = mkdtempSync(join(tmpdir(), "gantry-serve-nice-"));
    const niced = spawn(process.execPath, [CLI, "serve", "--dir", nicedRoot, "--nice", "7"], {
      env: cliEnvironment(),
      stdio: ["ignore", "pipe", "ignore"],
    });
    let nicedOut = "";
    niced.stdout.on("data", (c) => {
      nicedOut += c;
    });
    const nicedExited = new Promise((resolve) => niced.on("close", resolve));
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.stderr.on("data", (c) => {
      err += c;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      for (let i = 0; i < 1200 && !/#token=/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
      const [, port, token] = /^gantry serve: http:\/\/127\.0\.0\.1:(\d+)\/#token=(\S+)$/m.exec(out) ?? [];
      assert.ok(port && token, out + err);
      const file = join(root, ".gantry", "serve", "token");
      assert.equal(readFileSync(file, "utf8").trim(), token);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(
        readFileSync(join(root, ".gantry", "serve", ".gitignore"), "utf8"),
        "*\n",
        "never committed",
      );
      assert.equal(
        (await call(Number(port), "GET", "/api/runs", { headers: { authorization: `Bearer ${token}` } }))
          .text,
        "[]",
      );
      assert.equal((await call(Number(port), "GET", "/api/runs")).status, 401);
      // It yields to a run on this machine: SCHED_IDLE at niceness 19 on every thread, the CLI's default
      // (where chrt is missing it says so and keeps niceness 19).
      const threads = priorities(child.pid as number);
      assert.ok(threads.length > 1, "V8's and libuv's threads are there too");
      if (hasChrt()) assert.deepEqual(new Set(threads), new Set(["nice 19 policy 5"]), err);
      else {
        assert.deepEqual(new Set(threads), new Set(["nice 19 policy 0"]));
        assert.match(
          err,
          /SCHED_IDLE not set \(no chrt in \/usr\/bin:\/bin\); running at niceness 19 instead/,
        );
      }
      assert.ok(!existsSync(join(root, "planted-chrt-ran")), "the chrt on the PATH was not run");
      for (let i = 0; i < 1200 && !/#token=/.test(nicedOut); i++) await new Promise((r) => setTimeout(r, 50));
      // Never below the niceness it was started with (this test's, when run under `nice -n 10`).
      const seven = Math.max(7, getPriority());
      assert.deepEqual(new Set(priorities(niced.pid as number)), new Set([`nice ${seven} policy 0`]));
    } finally {
      child.kill("SIGINT");
      niced.kill("SIGINT");
    }
    await nicedExited;
    assert.equal(await exited, 0);
    assert.ok(!existsSync(join(root, ".gantry", "serve", "token")), "the token went with the server");
  });

  it("serve refuses a bad port and 0.0.0.0; devices refuses a bad key and scope, enrols 0600, revokes", async () => {
    const root = mkdtempSync(join(tmpdir(), "gantry-devices-cli-"));
    await assert.rejects(serveCommand({ dir: root, port: "99999" }), /--port.*expected a port 0-65535/);
    await assert.rejects(serveCommand({ dir: root, nice: "20" }), /--nice.*expected idle or a niceness 0-19/);
    await assert.rejects(serveCommand({ dir: root, nice: "-1" }), /--nice.*expected idle or a niceness 0-19/);
    await assert.rejects(
      serveCommand({ dir: root, nice: "1.5" }),
      /--nice.*expected idle or a niceness 0-19/,
    );
    await assert.rejects(
      serveCommand({ dir: root, host: "0.0.0.0" }),
      /--host.*the address or name clients will use/,
    );
    await assert.rejects(
      devicesAddCommand({ dir: root, name: "phone", publicKey: "abc" }),
      /--public-key.*Ed25519 public key/,
    );
    const keys = deviceKeys();
    await assert.rejects(
      devicesAddCommand({ dir: root, name: "phone", publicKey: keys.publicKey, scopes: "read,pause" }),
      /--scopes/,
    );
    const quiet = silence();
    try {
      assert.equal(
        await devicesAddCommand({
          dir: root,
          name: "phone",
          publicKey: keys.publicKey,
          scopes: "read,answer",
        }),
        0,
      );
      const [device] = readRegistry(root).devices;
      assert.ok(device);
      assert.match(device.id, /^d-[0-9a-f]{12}$/);
      assert.deepEqual(device.scopes, ["read", "answer"]);
      assert.equal(statSync(registryFile(root)).mode & 0o777, 0o600);
      assert.equal(await devicesRevokeCommand(device.id, { dir: root }), 0);
      assert.ok(readRegistry(root).devices[0]?.revokedAt);
      await assert.rejects(devicesRevokeCommand("d-000000000000", { dir: root }), /no enrolled device/);
    } finally {
      quiet();
    }
  });
});
