import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { execCommand } from "../../src/process/executor.js";
import { copiesFolder, sweepCopies } from "../../src/process/judging-copy.js";
import { type JudgingSandbox, judgingWrapper } from "../../src/process/judging-sandbox.js";
import { FORCE_LAYER_VARIABLE, judgingSupport } from "../../src/process/judging-support.js";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { sandboxStatusLine } from "../../src/process/sandbox-status.js";
import { trustedProgram } from "../../src/process/system-program.js";
import { scopeOf } from "../../src/process/wrapper-scope.js";
import { markedProcesses, reapMarked } from "../chaos/harness.js";

const scratch = mkdtempSync(join(tmpdir(), "gantry-judging-copy-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const support = await sandboxSupport();
const skip = support.works ? false : `bwrap does not work here: ${support.reason}`;
if (skip) console.log(`# skipping: ${skip}`);
const BWRAP = support.bwrap ?? "/usr/bin/bwrap";
const programs = { bwrap: BWRAP, layer: "copy" } as const;

/** A tree with a dependency folder (and its .cache), a .git folder and .gantry/, and a home holding gantry's state. */
function fixture(name: string) {
  const root = join(scratch, name, "project");
  const home = join(scratch, name, "home");
  for (const dir of ["node_modules/.cache", "node_modules/runner", ".git", ".gantry", "src"])
    mkdirSync(join(root, dir), { recursive: true });
  mkdirSync(join(home, ".local", "state", "gantry"), { recursive: true });
  writeFileSync(join(root, "src", "code.js"), "original\n");
  writeFileSync(join(root, "node_modules", "runner", "index.js"), "runner\n");
  writeFileSync(join(root, ".gantry", "config.json"), "{}\n");
  writeFileSync(join(home, ".local", "state", "gantry", "key"), "secret\n");
  const env = { ...process.env, HOME: home, XDG_STATE_HOME: join(home, ".local", "state") };
  return { root, home, env };
}

function run(command: string, root: string, env: NodeJS.ProcessEnv, timeoutMs = 20_000) {
  const sandbox: JudgingSandbox = { programs, repository: root };
  return execCommand({
    command,
    cwd: root,
    env,
    timeoutMs,
    killGraceMs: 2000,
    wrapper: judgingWrapper(sandbox, root, env),
  });
}

/** The pairs (option, path) of the bwrap command line inside the host shell's arguments. */
function binds(wrapper: readonly string[]): string[] {
  const at = wrapper.indexOf(BWRAP);
  const found: string[] = [];
  for (let i = at + 1; i < wrapper.length && wrapper[i] !== "--"; i += 1) {
    const option = wrapper[i] as string;
    if (option === "--bind" || option === "--ro-bind" || option === "--setenv") {
      found.push(`${option} ${wrapper[i + 1]} ${wrapper[i + 2]}`);
      i += 2;
    } else if (option === "--tmpfs") {
      found.push(`${option} ${wrapper[i + 1]}`);
      i += 1;
    }
  }
  return found;
}

describe("judgingWrapper with the copy layer: its command line", () => {
  test("a host shell copies the tree and bwrap binds the copy at the tree's path; dependency folders and .git read-only, .gantry and the state hidden, caches in /tmp", () => {
    const { root, home, env } = fixture("args");
    const wrapper = judgingWrapper({ programs, repository: root }, root, env);
    assert.deepEqual(wrapper.slice(0, 2), ["/bin/sh", "-c"]);
    assert.match(wrapper[2] as string, /cp -a --reflink=auto/);
    assert.match(wrapper[2] as string, /! -name 'node_modules' ! -name '\.git' ! -name '\.gantry'/);
    assert.ok(wrapper[2]?.includes(copiesFolder(env)), "the copies live in gantry's state directory");
    const seen = binds(wrapper);
    const bindAt = seen.indexOf(`--bind @gantry-judging-copy@ ${root}`);
    assert.ok(bindAt > seen.indexOf("--tmpfs /tmp"), seen.join("\n"));
    for (const line of [
      `--ro-bind ${join(root, "node_modules")} ${join(root, "node_modules")}`,
      `--ro-bind ${join(root, ".git")} ${join(root, ".git")}`,
      `--tmpfs ${join(root, "node_modules", ".cache")}`,
      `--tmpfs ${join(root, ".gantry")}`,
      `--tmpfs ${join(home, ".local", "state", "gantry")}`,
      "--setenv XDG_CACHE_HOME /tmp/.cache",
      "--setenv GOCACHE /tmp/.cache/go-build",
      "--setenv TMPDIR /tmp",
    ])
      assert.ok(seen.indexOf(line) > bindAt, `${line} after the copy's bind in\n${seen.join("\n")}`);
    assert.ok(wrapper.includes("--unshare-pid") && wrapper.includes("--unshare-user"));
    assert.deepEqual(wrapper.slice(wrapper.indexOf("--cap-drop"), wrapper.indexOf("--cap-drop") + 2), [
      "--cap-drop",
      "ALL",
    ]);
    assert.equal(wrapper.at(-1), "--", "the command's own shell follows");
    assert.deepEqual(scopeOf(wrapper), { tree: root, shielded: ["/"] });
  });

  test("a tree with no dependency folder, .git file or .gantry copies everything and binds nothing more", () => {
    const root = join(scratch, "plain");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, ".git"), "gitdir: /elsewhere\n");
    const wrapper = judgingWrapper({ programs, repository: root }, root);
    assert.doesNotMatch(wrapper[2] as string, /! -name/);
    assert.deepEqual(
      binds(wrapper).filter((line) => line.includes(root) && !line.startsWith("--ro-bind /tmp")),
      [`--bind @gantry-judging-copy@ ${root}`],
    );
  });
});

describe("judgingWrapper with the copy layer: real runs", { skip }, () => {
  test("writes to the tree and /tmp are gone after, the dependency folders are read-only but for .cache, the home is read-only, the copy is removed", async () => {
    const { root, home, env } = fixture("real");
    const mark = `copy-${process.pid}-${Date.now()}`;
    const result = await run(
      [
        "echo changed > src/code.js && cat src/code.js",
        "echo new > added.txt",
        `echo y > /tmp/${mark} && cat /tmp/${mark}`,
        "touch node_modules/runner/index.js 2>/dev/null && echo DEPS-WRITABLE || echo DEPS-READONLY",
        "touch node_modules/.cache/entry && echo CACHE-WRITABLE",
        "touch .git/planted 2>/dev/null && echo GIT-WRITABLE || echo GIT-READONLY",
        'touch "$HOME/.npmrc" 2>/dev/null && echo HOME-WRITABLE || echo HOME-READONLY',
        'echo "STATE:$(ls -A "$XDG_STATE_HOME/gantry" | wc -l) GANTRY:$(ls -A .gantry | wc -l)"',
        'mkdir -p "$XDG_CACHE_HOME/go-build" && echo CACHE-HOME:$XDG_CACHE_HOME',
        "grep CapEff /proc/self/status",
      ].join("; "),
      root,
      env,
    );
    assert.equal(result.exitCode, 0, result.output);
    for (const said of [
      /^changed$/m,
      /^y$/m,
      /DEPS-READONLY/,
      /CACHE-WRITABLE/,
      /GIT-READONLY/,
      /HOME-READONLY/,
    ])
      assert.match(result.output, said);
    assert.match(result.output, /STATE:0 GANTRY:0/);
    assert.match(result.output, /CACHE-HOME:\/tmp\/\.cache/);
    assert.match(result.output, /CapEff:\s+0+$/m);
    assert.equal(readFileSync(join(root, "src", "code.js"), "utf8"), "original\n");
    assert.equal(existsSync(join(root, "added.txt")), false);
    assert.equal(existsSync(`/tmp/${mark}`), false);
    assert.equal(existsSync(join(root, "node_modules", ".cache", "entry")), false);
    assert.equal(existsSync(join(home, ".npmrc")), false);
    assert.deepEqual(readdirSync(copiesFolder(env)), [], "the copy was removed");
  });

  test("the command's exit code comes through, and a timed-out command's copy is removed too", async () => {
    const { root, env } = fixture("exit");
    assert.equal((await run("exit 7", root, env)).exitCode, 7);
    const slow = await run("sleep 30", root, env, 500);
    assert.equal(slow.timedOut, true);
    assert.deepEqual(readdirSync(copiesFolder(env)), []);
  });

  test("a process it starts with setsid does not outlive it", async () => {
    const { root, env } = fixture("pid");
    const mark = `judging-copy-pid-${process.pid}-${Date.now()}`;
    const result = await run("setsid sleep 30 </dev/null >/dev/null 2>&1 & sleep 0.2", root, {
      ...env,
      GANTRY_CHAOS_MARKER: mark,
    });
    assert.equal(result.exitCode, 0, result.output);
    assert.deepEqual(await reapMarked(mark, 2000), []);
  });

  test(`${FORCE_LAYER_VARIABLE}=copy makes the trial choose the copy where the overlay works too, and the status line says so`, async () => {
    const env = { ...process.env, [FORCE_LAYER_VARIABLE]: "copy" };
    const found = await judgingSupport(BWRAP, env);
    assert.equal(found.works && found.programs.layer, "copy");
    assert.equal(found.works && found.overlayReason, "skipped (test hook)");
    assert.equal(
      await sandboxStatusLine("auto", env),
      "sandbox: bubblewrap works here; judging commands run over a scratch copy (overlayfs: skipped (test hook))",
    );
  });
});

describe("judgingWrapper with the copy layer: gantry killed", { skip }, () => {
  test("with setpriv the copying shell ends with gantry, and the command with it; the next trial removes the copy", async () => {
    const { root, env } = fixture("killed");
    const mark = `judging-copy-killed-${process.pid}-${Date.now()}`;
    const setpriv = trustedProgram("setpriv");
    if (!setpriv) return void console.log("# setpriv not found: nothing to show");
    const wrapper = judgingWrapper({ programs: { ...programs, setpriv }, repository: root }, root, env);
    assert.deepEqual(wrapper.slice(0, 5), [setpriv, "--pdeathsig", "KILL", "--", "/bin/sh"]);
    // A gantry of its own: starts the command, then is killed.
    const script = join(scratch, "killed", "gantry.mjs");
    writeFileSync(
      script,
      `import { spawn } from "node:child_process";
const child = spawn(process.argv[2], [...JSON.parse(process.argv[3]), "/bin/sh", "-c", "sleep 60"], { cwd: process.argv[4], stdio: "ignore" });
child.on("spawn", () => console.log("started"));
setInterval(() => {}, 1000);
`,
    );
    const gantry = spawn(
      process.execPath,
      [script, wrapper[0] as string, JSON.stringify(wrapper.slice(1)), root],
      {
        env: { ...env, GANTRY_CHAOS_MARKER: mark },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    await new Promise((resolve) => gantry.stdout.once("data", resolve));
    // The copy made and the sandbox running before gantry goes.
    const deadline = Date.now() + 10_000;
    const running = () => markedProcesses(mark).some((p) => p.cmdline === "sleep 60");
    while (Date.now() < deadline && !running()) await sleep(100);
    assert.ok(running(), "the command started");
    gantry.kill("SIGKILL");
    await new Promise((resolve) => gantry.on("exit", resolve));
    assert.deepEqual(await reapMarked(mark, 3000), [], "the command outlived the gantry that started it");
    sweepCopies(env);
    assert.equal(existsSync(copiesFolder(env, gantry.pid)), false);
  });
});

describe("sweepCopies", () => {
  test("removes the copies of gantry processes that are gone, keeps a live one's", async () => {
    const env = { HOME: join(scratch, "sweep"), XDG_STATE_HOME: join(scratch, "sweep", "state") };
    const gone = spawn("true");
    const pid = await new Promise<number>((resolve) => gone.on("exit", () => resolve(gone.pid as number)));
    for (const owner of [pid, process.pid])
      mkdirSync(join(copiesFolder(env, owner), "copy-x"), { recursive: true });
    sweepCopies(env);
    assert.equal(existsSync(copiesFolder(env, pid)), false);
    assert.equal(existsSync(join(copiesFolder(env), "copy-x")), true);
  });
});
