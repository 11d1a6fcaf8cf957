import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openRepo } from "../../src/git/repo.js";
import { ledgerKey } from "../../src/ledger/key.js";
import { signEntry } from "../../src/ledger/mac.js";
import type { LedgerEntry, Verdict } from "../../src/model/ledger.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DIST_CLI = join(REPO, "dist", "cli.js");
const work = mkdtempSync(join(tmpdir(), "gantry-ledger-"));

/** The environment for git and the CLI: nothing from whatever repository or hook the tests run under. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  return { ...env, GIT_CONFIG_NOSYSTEM: "1", HOME: work, XDG_STATE_HOME: join(work, "state") };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: cleanEnv(), encoding: "utf8" }).trim();
}

/** `git …` that may fail: its exit code and both outputs. */
function tryGit(cwd: string, ...args: string[]): { code: number; output: string } {
  const result = spawnSync("git", args, { cwd, env: cleanEnv(), encoding: "utf8" });
  return { code: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `gantry ledger …` through the built CLI, as a real process (async, so tests can run side by side). */
function gantry(cwd: string, ...args: string[]): Promise<Ran> {
  return gantryWith({}, cwd, ...args);
}

function gantryWith(env: NodeJS.ProcessEnv, cwd: string, ...args: string[]): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [DIST_CLI, ...args], {
      cwd,
      env: { ...cleanEnv(), ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

let repos = 0;
/** A fresh repository with one committed file and .gantry/runs ignored, as `gantry init` leaves it. */
function makeRepo(): string {
  const root = join(work, `repo-${++repos}`);
  mkdirSync(join(root, "src"), { recursive: true });
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.name", "Test");
  git(root, "config", "user.email", "test@example.com");
  writeFileSync(join(root, ".gitignore"), ".gantry/runs/\n");
  writeFileSync(join(root, "src", "app.js"), "export const answer = 41;\n");
  git(root, "add", ".gitignore", "src/app.js");
  git(root, "commit", "-q", "-m", "initial");
  return root;
}

const judge = async (root: string) => (await openRepo(root)).judge();

let clock = Date.parse("2025-03-01T09:00:00.000Z");
/** A ledger entry judged now (each one a second after the last, so "latest" is well defined). */
function entry(
  judged: { sha: string; tree: string },
  runId: string,
  gate: string,
  verdict: Verdict,
  more: Partial<LedgerEntry> = {},
): LedgerEntry {
  clock += 1000;
  return {
    v: 1,
    runId,
    feature: "checkout",
    storyId: "US-001",
    gate,
    verdict,
    sha: judged.sha,
    tree: judged.tree,
    at: new Date(clock).toISOString(),
    attempt: 1,
    detail: {},
    ...more,
  };
}

/** Appends entries as gantry's ledger writer does: each signed with the repository's key (created here). */
function appendLedger(root: string, runId: string, entries: LedgerEntry[], tornTail?: string): void {
  const dir = join(root, ".gantry", "runs", runId);
  mkdirSync(dir, { recursive: true });
  const { key } = ledgerKey(root, cleanEnv());
  const text = entries.map((e) => `${JSON.stringify(signEntry(e, key))}\n`).join("") + (tornTail ?? "");
  appendFileSync(join(dir, "ledger.jsonl"), text);
}

/** Entries as printed by --json, their MACs checked present and removed. */
function unsigned(entries: LedgerEntry[]): LedgerEntry[] {
  return entries.map(({ mac, ...entry }) => {
    assert.match(mac ?? "", /^[0-9a-f]{64}$/);
    return entry;
  });
}

/** Writes and commits .gantry/config.json: `ledger check` reads the config committed at HEAD. */
function writeConfig(root: string, config: Record<string, unknown>): void {
  mkdirSync(join(root, ".gantry"), { recursive: true });
  writeFileSync(join(root, ".gantry", "config.json"), JSON.stringify(config));
  git(root, "add", ".gantry/config.json");
  git(root, "commit", "-q", "-m", "config");
}

const verifyDetail = (passCount: number, failCount: number, status = "PASS") => ({
  status,
  runner: "node-test",
  passCount,
  failCount,
  skipCount: 0,
  command: "node --test",
  exitCode: failCount > 0 ? 1 : 0,
});

after(() => rmSync(work, { recursive: true, force: true }));

describe("gantry ledger", { concurrency: true }, () => {
  let root = "";
  const older = "20250301-090000-aaaa";
  const newer = "20250302-090000-bbbb";
  let written: LedgerEntry[] = [];

  before(async () => {
    root = makeRepo();
    const judged = await judge(root);
    appendLedger(root, older, [entry(judged, older, "verify", "pass", { detail: verifyDetail(1, 0) })]);
    written = [
      entry(judged, newer, "verify", "fail", { detail: verifyDetail(2, 1, "TEST_FAILURE") }),
      entry(judged, newer, "verify", "pass", { attempt: 2, detail: verifyDetail(3, 0) }),
      entry(judged, newer, "review", "pass", {
        detail: {
          checks: [
            { name: "typecheck", success: true, exitCode: 0 },
            { name: "lint", success: true, exitCode: 0 },
          ],
        },
      }),
      entry(judged, newer, "regression", "unverified", {
        storyId: "*",
        detail: { ...verifyDetail(0, 0, "NO_TESTS"), reason: "no test\nran" },
      }),
    ];
    appendLedger(root, newer, written);
  });

  test("lists the newest run's verdicts as a table", async () => {
    const ran = await gantry(root, "ledger");
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stderr, "");
    const lines = ran.stdout.trimEnd().split("\n");
    assert.equal(lines[0], `run ${newer} (feature checkout): 4 verdicts`);
    assert.match(lines[1] ?? "", /^TIME \(UTC\)\s+STORY\s+GATE\s+VERDICT\s+ATTEMPT\s+TREE\s+DETAIL$/);
    assert.equal(lines.length, 6);
    const tree = written[0]?.tree.slice(0, 7) ?? "";
    assert.match(lines[2] ?? "", /^2025-03-01 09:00:0\d\s+US-001\s+verify\s+fail\s+1\s+/);
    assert.ok(lines[2]?.includes(`${tree}  node-test: 2 passed, 1 failed TEST_FAILURE`), lines[2]);
    assert.match(lines[3] ?? "", /verify\s+pass\s+2\s+\w{7}\s+node-test: 3 passed, 0 failed$/);
    assert.match(lines[4] ?? "", /review\s+pass\s+1\s+\w{7}\s+typecheck ok, lint ok$/);
    assert.match(
      lines[5] ?? "",
      /\*\s+regression\s+unverified\s+1\s+\w{7}\s+node-test: 0 passed, 0 failed NO_TESTS — no test ran$/,
    );
  });

  test("--run picks an older run", async () => {
    const ran = await gantry(root, "ledger", "--run", older);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, new RegExp(`^run ${older} \\(feature checkout\\): 1 verdict\\n`));
    assert.equal(ran.stdout.trimEnd().split("\n").length, 3);
  });

  test("--json prints the entries as a JSON array", async () => {
    const ran = await gantry(root, "ledger", "--json", "--dir", root);
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(unsigned(JSON.parse(ran.stdout)), written);
  });

  test("an unknown --run is bad usage, one line, exit 2", async () => {
    const ran = await gantry(root, "ledger", "--run", "nope");
    assert.equal(ran.code, 2);
    assert.equal(ran.stdout, "");
    assert.equal(
      ran.stderr,
      `gantry: --run: no run "nope" under .gantry/runs/ and no plan of that id (newest: ${newer}) [GANTRY_E_NOT_FOUND]\n`,
    );
  });

  test("a torn last line is skipped and counted on stderr", async () => {
    const root = makeRepo();
    const torn = "20250303-090000-cccc";
    const judged = await judge(root);
    const entries = [entry(judged, torn, "verify", "pass"), entry(judged, torn, "review", "fail")];
    appendLedger(root, torn, entries, `{"v":1,"runId":"${torn}","feature":"checkout","storyId":"US-0`);
    const ran = await gantry(root, "ledger", "--json");
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(unsigned(JSON.parse(ran.stdout)), entries);
    assert.equal(
      ran.stderr,
      `gantry: skipped 1 torn or unreadable line in .gantry/runs/${torn}/ledger.jsonl\n`,
    );
    const table = await gantry(root, "ledger");
    assert.match(table.stdout, /: 2 verdicts\n/);
    assert.match(table.stderr, /skipped 1 torn/);
  });

  test("no runs: a clear message and exit 0; check exits 1", async () => {
    const empty = makeRepo();
    const ran = await gantry(empty, "ledger");
    assert.equal(ran.code, 0);
    assert.match(ran.stdout, /^no runs under \.gantry\/runs\/ yet/);
    assert.equal((await gantry(empty, "ledger", "--json")).stdout, "[]\n");
    const check = await gantry(empty, "ledger", "check");
    assert.equal(check.code, 1);
    assert.match(
      check.stdout,
      /3 of 3 mandatory gates not passed on tree \w{7}; no runs under \.gantry\/runs\//,
    );
    assert.match(
      check.stdout,
      /\n {2}verify: no verdict for this tree\n {2}review: no verdict for this tree\n {2}test-integrity: no verdict for this tree\n {2}mandatory gates from the defaults \(HEAD has no \.gantry\/config\.json\)\n$/,
    );
  });
});

describe("gantry ledger check", { concurrency: true }, () => {
  test("mandatory gates come from config: with only verify mandatory, review is not needed", async () => {
    const root = makeRepo();
    const run = "20250301-100000-dddd";
    appendLedger(root, run, [entry(await judge(root), run, "verify", "pass")]);
    const without = await gantry(root, "ledger", "check");
    assert.equal(without.code, 1);
    assert.match(without.stdout, /2 of 3 mandatory gates not passed/);
    assert.match(
      without.stdout,
      /\n {2}review: no verdict for this tree\n {2}test-integrity: no verdict for this tree\n {2}mandatory gates from the defaults/,
    );
    // An edit to the working copy's config is not what the check reads: it cannot drop a gate.
    mkdirSync(join(root, ".gantry"), { recursive: true });
    writeFileSync(join(root, ".gantry", "config.json"), JSON.stringify({ gates: { mandatory: ["verify"] } }));
    const uncommitted = await gantry(root, "ledger", "check");
    assert.equal(uncommitted.code, 1, uncommitted.stdout);
    assert.match(uncommitted.stdout, /review: no verdict for this tree/);
    writeConfig(root, { gates: { mandatory: ["verify"] } });
    const withConfig = await gantry(root, "ledger", "check");
    assert.equal(withConfig.code, 0, withConfig.stdout + withConfig.stderr);
    assert.equal(
      withConfig.stdout.replace(/tree \w{7}/, "tree T"),
      "gantry ledger check: every mandatory gate passed on tree T (verify)\n" +
        "  mandatory gates from HEAD:.gantry/config.json\n",
    );
    writeConfig(root, { execution: { regression: { mode: "inline" } } });
    const inline = await gantry(root, "ledger", "check");
    assert.equal(inline.code, 1);
    assert.match(
      inline.stdout,
      /review: no verdict for this tree\n {2}test-integrity: no verdict for this tree\n {2}regression: no verdict for this tree\n {2}mandatory gates from HEAD/,
    );
  });

  test("the latest verdict for this tree wins, across runs and stories; run-level verdicts count", async () => {
    const root = makeRepo();
    writeConfig(root, { gates: { mandatory: ["verify", "review", "regression"] } });
    const judged = await judge(root);
    const [a, b, c] = ["20250301-110000-aaaa", "20250301-120000-bbbb", "20250301-130000-cccc"];
    appendLedger(root, a, [
      entry(judged, a, "verify", "pass"),
      entry(judged, a, "review", "pass"),
      entry(judged, a, "regression", "pass", { storyId: "*" }),
    ]);
    assert.equal((await gantry(root, "ledger", "check")).code, 0);

    appendLedger(root, b, [entry(judged, b, "review", "fail", { storyId: "US-002" })]);
    const failed = await gantry(root, "ledger", "check");
    assert.equal(failed.code, 1);
    assert.match(
      failed.stdout,
      /\n {2}review: fail \(run 20250301-120000-bbbb, story US-002\)\n {2}mandatory/,
    );

    appendLedger(root, c, [
      entry(judged, c, "review", "not-applicable", { storyId: "US-003" }),
      entry(judged, c, "regression", "unverified", { storyId: "*" }),
    ]);
    const json = await gantry(root, "ledger", "check", "--json");
    assert.equal(json.code, 1);
    assert.equal(json.stderr, "");
    const report = JSON.parse(json.stdout);
    assert.equal(report.ok, false);
    assert.equal(report.gatesFrom, "HEAD:.gantry/config.json");
    assert.equal(report.key, true);
    assert.equal(report.unverified, 0);
    assert.equal(report.tree, judged.tree);
    assert.deepEqual(
      report.gates.map((g: { gate: string; ok: boolean; verdict: string }) => [g.gate, g.ok, g.verdict]),
      [
        ["verify", true, "pass"],
        ["review", true, "not-applicable"],
        ["regression", false, "unverified"],
      ],
    );
    assert.equal(report.gates[2].message, `regression: unverified (run ${c}, run-level)`);
  });

  test("--feature counts only that feature's verdicts; a torn line does not stop the check", async () => {
    const root = makeRepo();
    writeConfig(root, { gates: { mandatory: ["verify"] } });
    const judged = await judge(root);
    const run = "20250301-140000-eeee";
    appendLedger(root, run, [entry(judged, run, "verify", "pass", { feature: "search" })], '{"v":1,"ru');
    const all = await gantry(root, "ledger", "check");
    assert.equal(all.code, 0, all.stdout);
    assert.match(
      all.stderr,
      /skipped 1 torn or unreadable line in \.gantry\/runs\/20250301-140000-eeee\/ledger.jsonl/,
    );
    assert.equal((await gantry(root, "ledger", "check", "--feature", "search")).code, 0);
    const other = await gantry(root, "ledger", "check", "--feature", "checkout");
    assert.equal(other.code, 1);
    assert.match(other.stdout, /verify: no verdict for this tree/);
  });

  test("lines without a valid MAC count for nothing: named on stderr, marked in the table", async () => {
    const root = makeRepo();
    writeConfig(root, { gates: { mandatory: ["verify"] } });
    const judged = await judge(root);
    const run = "20250301-150000-ffff";
    appendLedger(root, run, [entry(judged, run, "verify", "fail")]);
    const forged = [
      entry(judged, run, "verify", "pass"),
      { ...entry(judged, run, "verify", "pass"), mac: "0".repeat(64) },
      signEntry(entry(judged, run, "verify", "pass"), Buffer.alloc(32, 7)),
    ];
    const file = join(root, ".gantry", "runs", run, "ledger.jsonl");
    appendFileSync(file, forged.map((line) => `${JSON.stringify(line)}\n`).join(""));
    const check = await gantry(root, "ledger", "check");
    assert.equal(check.code, 1, check.stdout);
    assert.match(check.stdout, /\n {2}verify: fail \(run 20250301-150000-ffff, story US-001\)\n/);
    assert.equal(
      check.stderr,
      `gantry: 3 lines in .gantry/runs/${run}/ledger.jsonl have no valid MAC (forged or written by another key); ignored\n`,
    );
    const table = await gantry(root, "ledger");
    assert.equal(table.code, 0);
    assert.match(table.stdout, /: 1 verdict \(and 3 without a valid MAC, marked\)\n/);
    assert.equal(table.stdout.match(/verify\s+pass \(NO VALID MAC\)/g)?.length, 3, table.stdout);

    // A genuine pass, signed with this repository's key, is what counts.
    appendLedger(root, run, [entry(judged, run, "verify", "pass")]);
    assert.equal((await gantry(root, "ledger", "check")).code, 0);

    // On a machine without the key (a fresh clone in CI) no line can be verified: the check says why.
    const elsewhere = await gantryWith(
      { XDG_STATE_HOME: join(work, "other-machine") },
      root,
      "ledger",
      "check",
    );
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.stdout, /verify: no verdict for this tree\n {2}no ledger key for this repository/);
    assert.match(elsewhere.stdout, /check the ledger on the machine that wrote it, or copy its key there/);
    assert.match(
      elsewhere.stderr,
      /^gantry: 5 ledger lines ignored: no ledger key for this repository on this machine \(/,
    );
  });

  test("outside a git repository: bad usage, exit 2", async () => {
    const plain = join(work, "not-a-repo");
    mkdirSync(plain, { recursive: true });
    const ran = await gantry(plain, "ledger", "check");
    assert.equal(ran.code, 2, ran.stderr);
    assert.match(ran.stderr, /^gantry: .*not inside a git repository/);
  });
});

/** Installs `command` as the repository's pre-commit hook, the script docs/ledger.md shows. */
function installHook(root: string, command: string): void {
  const hook = join(root, ".git", "hooks", "pre-commit");
  writeFileSync(hook, `#!/bin/sh\nexec ${command} ledger check\n`, { mode: 0o755 });
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** A failing gate blocks the commit, a pass on this exact tree allows it, an edit after the pass blocks again. */
async function exerciseHook(root: string): Promise<void> {
  const head = () => git(root, "rev-parse", "HEAD");
  writeFileSync(join(root, "src", "app.js"), "export const answer = 42;\n");
  git(root, "add", "src/app.js");
  const judged = await judge(root);
  const [a, b, c] = ["20250401-090000-aaaa", "20250401-100000-bbbb", "20250401-110000-cccc"];
  appendLedger(root, a, [
    entry(judged, a, "verify", "pass"),
    entry(judged, a, "test-integrity", "pass"),
    entry(judged, a, "review", "fail"),
  ]);

  const before = head();
  const blocked = tryGit(root, "commit", "-q", "-m", "answer 42");
  assert.notEqual(blocked.code, 0, blocked.output);
  assert.equal(head(), before, "a failing review must leave HEAD where it was");
  assert.match(blocked.output, /review: fail \(run 20250401-090000-aaaa, story US-001\)/);

  appendLedger(root, b, [entry(judged, b, "review", "pass")]);
  const allowed = tryGit(root, "commit", "-q", "-m", "answer 42");
  assert.equal(allowed.code, 0, allowed.output);
  assert.notEqual(head(), before);
  assert.match(
    allowed.output,
    /every mandatory gate passed on tree \w{7} \(verify, review, test-integrity\)/,
  );

  // The pass was for the tree before this edit: it does not count for the edit (`commit -a` runs the
  // hook with git's temporary index, which must not matter either).
  writeFileSync(join(root, "src", "app.js"), "export const answer = 43;\n");
  const afterPass = head();
  const stale = tryGit(root, "commit", "-q", "-a", "-m", "answer 43");
  assert.notEqual(stale.code, 0, stale.output);
  assert.equal(head(), afterPass);
  assert.match(
    stale.output,
    /verify: no verdict for this tree \(last: pass on tree \w{7}, run 20250401-090000-aaaa/,
  );
  assert.match(
    stale.output,
    /review: no verdict for this tree \(last: pass on tree \w{7}, run 20250401-100000-bbbb/,
  );

  // What is judged is the whole working tree, not what is staged: with verdicts on the working tree,
  // committing only part of it (as after `git add -p`) is allowed.
  writeFileSync(join(root, "src", "other.js"), "export const other = 1;\n");
  const whole = await judge(root);
  appendLedger(root, c, [
    entry(whole, c, "verify", "pass"),
    entry(whole, c, "review", "not-applicable"),
    entry(whole, c, "test-integrity", "not-applicable"),
  ]);
  git(root, "add", "src/app.js");
  const partial = tryGit(root, "commit", "-q", "-m", "answer 43, other.js left out");
  assert.equal(partial.code, 0, partial.output);
  assert.deepEqual(git(root, "show", "--name-only", "--format=", "HEAD").split("\n"), ["src/app.js"]);
}

describe("gantry ledger check as a git pre-commit hook", () => {
  test("through the built CLI (dist/cli.js)", async () => {
    const root = makeRepo();
    installHook(root, `${quote(process.execPath)} ${quote(DIST_CLI)}`);
    await exerciseHook(root);
  });
});
