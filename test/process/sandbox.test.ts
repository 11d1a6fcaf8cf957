import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { execCommand } from "../../src/process/executor.js";
import {
  bwrapArgs,
  decideSandbox,
  gantryScratchDirectory,
  type SandboxLayout,
  sandboxLayout,
  sandboxSupport,
} from "../../src/process/sandbox.js";
import { sandboxStatusLine } from "../../src/process/sandbox-status.js";
import { reapMarked } from "../chaos/harness.js";

const scratch = mkdtempSync(join(tmpdir(), "gantry-sandbox-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A project tree with .git and .gantry, and a home with git config and gantry's state directory. */
function fixture(name: string) {
  const base = join(scratch, name);
  const root = join(base, "project");
  const home = join(base, "home");
  for (const dir of [
    join(root, ".git", "hooks"),
    join(root, ".gantry"),
    join(home, ".local", "state", "gantry"),
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(join(root, ".git", "config"), "[core]\n");
  writeFileSync(join(root, ".gantry", "config.json"), "{}\n");
  writeFileSync(join(home, ".gitconfig"), "[user]\n");
  writeFileSync(join(home, ".local", "state", "gantry", "ledger.key"), "secret\n");
  const env = { PATH: process.env.PATH ?? "", HOME: home, TMPDIR: "" };
  return { root, home, env };
}

const support = await sandboxSupport();
const skipWithoutBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;
if (skipWithoutBwrap) console.log(`# skipping the real sandbox runs: ${skipWithoutBwrap}`);

describe("sandboxLayout and bwrapArgs", () => {
  test("binds the tree writable, .git/.gantry and git's global config read-only on top, hides gantry's state", () => {
    const { root, home, env } = fixture("layout");
    const layout = sandboxLayout(root, env);
    assert.equal(layout.root, root);
    assert.deepEqual(layout.writable, [home, "/tmp"], "only directories that exist are bound");
    assert.deepEqual(layout.readOnly, [join(root, ".git"), join(root, ".gantry"), join(home, ".gitconfig")]);
    assert.deepEqual(layout.hidden, [join(home, ".local", "state", "gantry")]);
  });

  test("hides gantry's scratch checkouts (beside its state directory) once the folder exists", () => {
    const { root, home, env } = fixture("scratch-layout");
    const checkouts = join(home, ".local", "state", "gantry-scratch");
    assert.equal(gantryScratchDirectory(env), checkouts);
    mkdirSync(checkouts);
    const args = bwrapArgs(sandboxLayout(root, env), "bwrap");
    const at = args.indexOf(checkouts);
    assert.equal(args[at - 1], "--tmpfs", args.join(" "));
    assert.ok(at > args.lastIndexOf(root), "after the tree and the writable binds, so it covers them");
  });

  test("orders the mounts so later ones cover earlier ones: read-only root, writable, tree, read-only, hidden", () => {
    const layout: SandboxLayout = {
      root: "/p",
      writable: ["/h", "/tmp"],
      readOnly: ["/p/.git"],
      hidden: ["/h/s"],
    };
    assert.deepEqual(bwrapArgs(layout, "/usr/bin/bwrap"), [
      "/usr/bin/bwrap",
      ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"],
      ...["--bind", "/h", "/h", "--bind", "/tmp", "/tmp"],
      ...["--bind", "/p", "/p"],
      ...["--ro-bind", "/p/.git", "/p/.git"],
      ...["--tmpfs", "/h/s"],
      ...["--unshare-pid", "--die-with-parent", "--cap-drop", "ALL", "--"],
    ]);
  });
});

describe("detection", () => {
  test("no bwrap on PATH: not available, and the answer is kept for that PATH", async () => {
    const empty = join(scratch, "empty-path");
    mkdirSync(empty, { recursive: true });
    const first = sandboxSupport({ PATH: empty });
    assert.equal(sandboxSupport({ PATH: empty }), first, "asked once per PATH");
    assert.deepEqual(await first, { works: false, reason: "bwrap not found" });
  });

  test("a bwrap whose trial run fails is not available, and the reason quotes what it said", async () => {
    // Outside /tmp and the home: a PATH entry there is no place gantry takes its programs from.
    const outside = mkdtempSync(join(process.cwd(), ".gantry-test-bwrap-"));
    after(() => rmSync(outside, { recursive: true, force: true }));
    const dir = join(outside, "broken-bwrap");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "bwrap"),
      "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n",
    );
    chmodSync(join(dir, "bwrap"), 0o755);
    const found = await sandboxSupport({ PATH: `${dir}:/usr/bin:/bin`, HOME: scratch });
    assert.equal(found.works, false);
    assert.match(
      found.reason ?? "",
      /broken-bwrap\/bwrap does not work here \(a trial run failed: bwrap: No permissions/,
    );
  });

  test("decideSandbox: off never asks; bwrap required and missing is unavailable; auto and missing warns", async () => {
    const empty = join(scratch, "empty-path");
    assert.deepEqual(await decideSandbox("off", scratch, { PATH: empty }), { kind: "unsandboxed" });
    assert.deepEqual(await decideSandbox("bwrap", scratch, { PATH: empty }), {
      kind: "unavailable",
      reason: "bwrap not found",
    });
    const auto = await decideSandbox("auto", scratch, { PATH: empty });
    assert.equal(auto.kind, "unsandboxed");
    assert.match(
      auto.kind === "unsandboxed" ? (auto.warning ?? "") : "",
      /^gantry: sandbox not available \(bwrap not found\): agent sessions run unsandboxed, so \.git\/ and \.gantry\/ are not write-protected/,
    );
    assert.equal(
      await sandboxStatusLine("auto", { PATH: empty }),
      'sandbox: not available (bwrap not found): agent.sandbox "auto" runs sessions unsandboxed',
    );
  });

  test("bwrap on this machine: detection says it works", { skip: skipWithoutBwrap }, async () => {
    assert.equal(await sandboxStatusLine("auto"), "sandbox: bubblewrap works here");
    const decided = await decideSandbox("bwrap", scratch);
    assert.equal(decided.kind, "sandboxed");
  });
});

describe("a command under the sandbox (real bwrap)", { skip: skipWithoutBwrap }, () => {
  const sandboxed = async (name: string) => {
    const f = fixture(name);
    const decided = await decideSandbox("bwrap", f.root, f.env);
    assert.equal(decided.kind, "sandboxed");
    return { ...f, wrapper: decided.kind === "sandboxed" ? decided.wrapper : [] };
  };

  test("the tree and the home are writable; .git, .gantry and ~/.gitconfig are not; gantry's state is hidden", async () => {
    const { root, home, env, wrapper } = await sandboxed("fs");
    const result = await execCommand({
      command: [
        "echo edit > src.txt && echo wrote-tree",
        "echo login > $HOME/.agent-auth && echo wrote-home",
        "echo hook > .git/hooks/pre-commit || echo blocked-hook",
        "echo evil >> .git/config || echo blocked-git-config",
        "echo '{}' > .gantry/config.json || echo blocked-gantry",
        "echo x >> $HOME/.gitconfig || echo blocked-gitconfig",
        "ls -A $HOME/.local/state/gantry | wc -l",
        'echo "role=$GANTRY_ROLE"',
        "umount .git 2>/dev/null || echo blocked-umount",
      ].join("\n"),
      cwd: root,
      env: { ...env, GANTRY_ROLE: "implement" },
      timeoutMs: 10_000,
      wrapper,
    });
    assert.equal(result.exitCode, 0, result.output);
    for (const line of ["wrote-tree", "wrote-home", "blocked-hook", "blocked-git-config", "blocked-gantry"]) {
      assert.match(result.output, new RegExp(`^${line}$`, "m"), result.output);
    }
    assert.match(result.output, /^blocked-gitconfig$/m);
    assert.match(result.output, /^blocked-umount$/m);
    assert.match(result.output, /^0$/m, "gantry's state directory looks empty inside");
    assert.match(result.output, /^role=implement$/m, "the environment reaches the command");
    assert.equal(readFileSync(join(root, "src.txt"), "utf8"), "edit\n");
    assert.equal(existsSync(join(home, ".agent-auth")), true);
    assert.equal(existsSync(join(root, ".git", "hooks", "pre-commit")), false);
    assert.equal(readFileSync(join(root, ".git", "config"), "utf8"), "[core]\n");
    assert.equal(readFileSync(join(root, ".gantry", "config.json"), "utf8"), "{}\n");
    assert.equal(readFileSync(join(home, ".local", "state", "gantry", "ledger.key"), "utf8"), "secret\n");
  });

  test("gantry's state directory is hidden also when it is made only after the sandbox was decided", async () => {
    const base = join(scratch, "late-key");
    const root = join(base, "project");
    const home = join(base, "home");
    mkdirSync(join(root, ".git"), { recursive: true });
    mkdirSync(home, { recursive: true });
    const env = { PATH: process.env.PATH ?? "", HOME: home };
    const decided = await decideSandbox("bwrap", root, env);
    assert.equal(decided.kind, "sandboxed");
    const state = join(home, ".local", "state", "gantry");
    mkdirSync(join(state, "keys"), { recursive: true });
    writeFileSync(join(state, "keys", "repo.key"), "secret\n");
    const result = await execCommand({
      command: `cat ${JSON.stringify(join(state, "keys", "repo.key"))} || echo hidden`,
      cwd: root,
      env,
      timeoutMs: 10_000,
      wrapper: decided.kind === "sandboxed" ? decided.wrapper : [],
    });
    assert.match(result.output, /^hidden$/m);
    assert.doesNotMatch(result.output, /secret/);
  });

  test("a scratch checkout gantry judges is out of a session's sight and reach, also with the state under /tmp", async () => {
    const base = join(scratch, "scratch-reach");
    const root = join(base, "project");
    const state = join(base, "state");
    mkdirSync(join(root, ".git"), { recursive: true });
    const env = { PATH: process.env.PATH ?? "", HOME: join(base, "home"), XDG_STATE_HOME: state };
    mkdirSync(env.HOME, { recursive: true });
    const decided = await decideSandbox("bwrap", root, env);
    assert.equal(decided.kind, "sandboxed");
    const checkout = join(gantryScratchDirectory(env), "gantry-scratch-x");
    mkdirSync(join(checkout, "src"), { recursive: true });
    writeFileSync(join(checkout, "src", "app.js"), "ok\n");
    const result = await execCommand({
      command: [
        `ls -A ${JSON.stringify(gantryScratchDirectory(env))} | wc -l`,
        `echo poison > ${JSON.stringify(join(checkout, "src", "app.js"))} || echo blocked`,
      ].join("\n"),
      cwd: root,
      env,
      timeoutMs: 10_000,
      wrapper: decided.kind === "sandboxed" ? decided.wrapper : [],
    });
    assert.match(result.output, /^0$/m, "the scratch folder looks empty inside");
    assert.match(result.output, /^blocked$/m, result.output);
    assert.equal(readFileSync(join(checkout, "src", "app.js"), "utf8"), "ok\n");
  });

  test("a setsid process started inside dies with the session (its PID namespace)", async () => {
    const { root, env, wrapper } = await sandboxed("pidns");
    const marker = `sandbox-setsid-${process.pid}-${Date.now()}`;
    const result = await execCommand({
      command: "setsid sleep 30 </dev/null >/dev/null 2>&1 & sleep 0.2; echo started",
      cwd: root,
      env: { ...env, GANTRY_CHAOS_MARKER: marker },
      timeoutMs: 10_000,
      wrapper,
    });
    assert.equal(result.exitCode, 0, result.output);
    const left = await reapMarked(marker, 1000);
    assert.deepEqual(left, [], "the setsid sleep outlived its sandboxed session");
    // The control: without the sandbox the same command leaves its setsid sleep behind.
    await execCommand({
      command: "setsid sleep 30 </dev/null >/dev/null 2>&1 & sleep 0.2",
      cwd: root,
      env: { ...env, GANTRY_CHAOS_MARKER: `${marker}-bare` },
      timeoutMs: 10_000,
    });
    assert.equal((await reapMarked(`${marker}-bare`)).length, 1, "unsandboxed, the setsid sleep survives");
  });

  test("a timeout stops the sandboxed command and everything it started", async () => {
    const { root, env, wrapper } = await sandboxed("timeout");
    const started = performance.now();
    const result = await execCommand({
      command: "sleep 30 & sleep 30",
      cwd: root,
      env,
      timeoutMs: 300,
      killGraceMs: 200,
      wrapper,
    });
    assert.equal(result.timedOut, true);
    assert.ok(performance.now() - started < 5000);
  });

  test("at a timeout the command inside gets SIGTERM and its grace period, not bwrap's sudden end", async () => {
    const { root, env, wrapper } = await sandboxed("grace");
    const result = await execCommand({
      command: "trap 'sleep 0.5; echo cleaned-up > cleaned.txt; exit 3' TERM; sleep 30 & wait",
      cwd: root,
      env,
      timeoutMs: 300,
      killGraceMs: 3000,
      wrapper,
    });
    assert.equal(result.timedOut, true);
    assert.equal(readFileSync(join(root, "cleaned.txt"), "utf8"), "cleaned-up\n");
  });

  test("a command that ignores SIGTERM is killed when the grace period is over", async () => {
    const { root, env, wrapper } = await sandboxed("ignore-term");
    const started = performance.now();
    const result = await execCommand({
      command: "trap '' TERM; sleep 30",
      cwd: root,
      env,
      timeoutMs: 300,
      killGraceMs: 700,
      wrapper,
    });
    const took = performance.now() - started;
    assert.equal(result.timedOut, true);
    assert.ok(took >= 950 && took < 5000, `took ${Math.round(took)} ms`);
  });
});
