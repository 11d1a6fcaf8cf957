import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Ajv2020 from "ajv/dist/2020.js";
import { createEventBus, type EventBus } from "../../src/bus/event-bus.js";
import { InputError } from "../../src/config/input-error.js";
import { loadConfig, parseConfig } from "../../src/config/loader.js";
import { type Config, type ConfigInput, ConfigSchema } from "../../src/config/schema.js";
import type { RunControl } from "../../src/model/run-control.js";
import { wireHooks } from "../../src/subscribers/hooks.js";
import type { Logger } from "../../src/util/logger.js";

const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-hooks-")));
after(() => rmSync(work, { recursive: true, force: true }));

const schema = JSON.parse(
  readFileSync(new URL("../../schemas/hook-payload.schema.json", import.meta.url), "utf8"),
);
// ajv is CommonJS: under NodeNext its default import is `module.exports`, whose `default` is the class.
const validatePayload = new Ajv2020.default({ allErrors: true }).compile(schema);

let dirs = 0;
function freshDir(): string {
  const dir = join(work, `case-${++dirs}`);
  mkdirSync(dir);
  return dir;
}

interface Harness {
  bus: EventBus;
  root: string;
  warnings: string[];
  logs: { level: string; obj: Record<string, unknown>; msg: string | undefined }[];
  vetoes: [string, string][];
  abort: AbortController;
  dispose: () => void;
}

function harness(hooks: ConfigInput["hooks"], root = freshDir()): Harness {
  const config: Config = ConfigSchema.parse({ hooks });
  const bus = createEventBus({ runId: "run-1", now: () => new Date("2026-03-04T05:06:07.000Z") });
  const logs: Harness["logs"] = [];
  const record =
    (level: string) =>
    (obj: object, msg?: string): void => {
      logs.push({ level, obj: obj as Record<string, unknown>, msg });
    };
  const logger: Logger = {
    debug: record("debug"),
    info: record("info"),
    warn: record("warn"),
    error: record("error"),
    child: () => logger,
  };
  const warnings: string[] = [];
  const vetoes: [string, string][] = [];
  const abort = new AbortController();
  const control: RunControl = {
    vetoStory: (id, reason) => vetoes.push([id, reason]),
    requestPause: () => {},
    decide: () => {},
    raiseCostLimit: () => 0,
    signal: abort.signal,
  };
  const dispose = wireHooks(bus, {
    config,
    root,
    control,
    logger,
    warn: (line) => warnings.push(line),
    feature: "checkout",
  });
  return { bus, root, warnings, logs, vetoes, abort, dispose };
}

/**
 * A hook command that appends what it was given to `file`: standard input, its environment and its
 * working directory, separated by NUL-SOH and ended by NUL-STX (JSON text and variables hold no NUL).
 */
const record = (file: string) =>
  `{ cat; printf '\\000\\001'; env -0; printf '\\000\\001'; pwd -P; printf '\\000\\002'; } >> "${file}"`;

interface Recorded {
  stdin: string;
  env: Record<string, string>;
  cwd: string;
}
function recorded(file: string): Recorded[] {
  if (!existsSync(file)) return [];
  const calls = readFileSync(file, "utf8").split("\0\x02");
  calls.pop();
  return calls.map((call) => {
    const [stdin = "", env = "", cwd = ""] = call.split("\0\x01");
    const vars = env
      .split("\0")
      .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)])
      .filter(([name]) => name?.startsWith("GANTRY_"));
    return { stdin, env: Object.fromEntries(vars), cwd: cwd.trim() };
  });
}

const story = (id: string, title = `Story ${id}`) => ({
  id,
  title,
  status: "in-progress" as const,
  attempts: 1,
});

describe("hooks", () => {
  it("fires each hook once per occurrence, in event order, with the documented payload and variables", async () => {
    const out = join(work, "all.jsonl");
    const h = harness({
      "on-start": record(out),
      "on-story-start": record(out),
      "on-story-complete": record(out),
      "on-story-fail": record(out),
      "on-story-skip": record(out),
      "on-escalate": record(out),
      "on-pause": record(out),
      "on-resume": record(out),
      "on-complete": record(out),
      "on-error": record(out),
    });
    const inherited = process.env.GANTRY_STORY_ID;
    process.env.GANTRY_STORY_ID = "STALE-FROM-PARENT";
    try {
      const { bus } = h;
      bus.emit("run:start", { feature: "checkout", totalStories: 2 });
      // Whatever else an event object carries at run time must not reach the hook.
      const fat = { ...story("US-1"), description: "the whole PRD text" };
      bus.emit("story:start", { story: fat, tier: "fast" });
      bus.emit("stage:enter", { storyId: "US-1", stage: "execution" }); // no hook for this one
      bus.emit("escalation:tier-change", {
        storyId: "US-1",
        from: "fast",
        to: "balanced",
        reason: "agent timeout",
      });
      bus.emit("story:complete", {
        story: { ...story("US-1"), status: "passed" },
        metrics: { durationMs: 1200, costUsd: 0.42, attempts: 2, tier: "balanced", agentCalls: 3 },
      });
      bus.emit("story:fail", { story: { ...story("US-2"), status: "failed" }, reason: "tests failed" });
      bus.emit("story:fail", { story: { ...story("US-3"), status: "failed" }, reason: "review failed" });
      bus.emit("story:skip", { story: { ...story("US-4"), status: "blocked" }, reason: "depends on US-2" });
      bus.emit("run:pause", { reason: "cost limit" });
      bus.emit("run:resume", { reason: "approved" });
      bus.emit("run:error", { error: { message: "disk full", code: "GANTRY_E_INTERNAL" } });
      bus.emit("run:complete", {
        summary: {
          passed: 1,
          failed: 2,
          skipped: 0,
          blocked: 1,
          paused: 0,
          durationMs: 5000,
          costUsd: 0.42,
          costBasis: "exact",
        },
        exitCode: 1,
      });
      const stuck = await bus.flush(20_000);
      assert.deepEqual(stuck, []);
    } finally {
      if (inherited === undefined) delete process.env.GANTRY_STORY_ID;
      else process.env.GANTRY_STORY_ID = inherited;
      h.dispose();
    }

    const calls = recorded(out);
    const payloads = calls.map((c) => JSON.parse(c.stdin) as Record<string, unknown>);
    assert.deepEqual(
      payloads.map((p) => p.hook),
      [
        "on-start",
        "on-story-start",
        "on-escalate",
        "on-story-complete",
        "on-story-fail",
        "on-story-fail",
        "on-story-skip",
        "on-pause",
        "on-resume",
        "on-error",
        "on-complete",
      ],
    );
    for (const payload of payloads) {
      assert.ok(validatePayload(payload), `${payload.hook}: ${JSON.stringify(validatePayload.errors)}`);
    }
    assert.deepEqual(payloads[4], {
      hook: "on-story-fail",
      event: "story:fail",
      runId: "run-1",
      feature: "checkout",
      at: "2026-03-04T05:06:07.000Z",
      story: { id: "US-2", title: "Story US-2", status: "failed", attempts: 1 },
      reason: "tests failed",
    });
    assert.deepEqual(payloads[1]?.story, {
      id: "US-1",
      title: "Story US-1",
      status: "in-progress",
      attempts: 1,
    });
    for (const call of calls) assert.equal(call.cwd, h.root);

    const env = (i: number) => calls[i]?.env;
    assert.deepEqual(env(0), {
      GANTRY_HOOK: "on-start",
      GANTRY_EVENT: "run:start",
      GANTRY_RUN_ID: "run-1",
      GANTRY_FEATURE: "checkout",
    });
    assert.deepEqual(env(4), {
      GANTRY_HOOK: "on-story-fail",
      GANTRY_EVENT: "story:fail",
      GANTRY_RUN_ID: "run-1",
      GANTRY_FEATURE: "checkout",
      GANTRY_STORY_ID: "US-2",
      GANTRY_STORY_TITLE: "Story US-2",
      GANTRY_STORY_STATUS: "failed",
      GANTRY_REASON: "tests failed",
    });
    assert.equal(env(2)?.GANTRY_STORY_ID, "US-1");
    assert.equal(env(2)?.GANTRY_REASON, "agent timeout");
    assert.equal(env(9)?.GANTRY_REASON, "disk full");
    assert.deepEqual(h.warnings, []);
  });

  it("a story title is data: $(...), backticks, quotes and newlines arrive intact and nothing runs", async () => {
    const mark = `/tmp/pwned-${randomBytes(6).toString("hex")}`;
    const title = `$(touch ${mark}) \`touch ${mark}-bt\` "double" 'single' \\ ; touch ${mark}-semi\nsecond line $HOME`;
    const out = join(work, "title.jsonl");
    const echoed = join(work, "title.txt");
    const h = harness({
      "on-story-start": [record(out), `printf '%s' "$GANTRY_STORY_TITLE" > "${echoed}"`],
    });
    h.bus.emit("story:start", { story: story("US-9", title), tier: "fast" });
    await h.bus.flush(10_000);
    h.dispose();
    const [call] = recorded(out);
    assert.ok(call);
    const payload = JSON.parse(call.stdin) as { story: { title: string } };
    assert.ok(validatePayload(payload), JSON.stringify(validatePayload.errors));
    assert.equal(payload.story.title, title);
    assert.equal(call.env.GANTRY_STORY_TITLE, title);
    assert.equal(readFileSync(echoed, "utf8"), title);
    for (const suffix of ["", "-bt", "-semi"])
      assert.equal(existsSync(`${mark}${suffix}`), false, mark + suffix);
    assert.deepEqual(h.vetoes, []);
    assert.deepEqual(h.warnings, []);
  });

  it("kills a hook past its timeout, group and all, warns, and flush returns promptly", async () => {
    const pidFile = join(work, "hang.pid");
    const next = join(work, "after-hang.jsonl");
    const h = harness({
      "on-story-fail": [{ command: `echo $$ > "${pidFile}"; sleep 30`, timeoutMs: 300 }, record(next)],
    });
    const started = performance.now();
    h.bus.emit("story:fail", { story: story("US-1"), reason: "x" });
    const stuck = await h.bus.flush(10_000);
    const seconds = (performance.now() - started) / 1000;
    h.dispose();
    assert.deepEqual(stuck, []);
    assert.ok(seconds < 3, `flush took ${seconds}s`);
    const pgid = Number(readFileSync(pidFile, "utf8").trim());
    assert.ok(pgid > 0);
    assert.deepEqual(liveInGroup(pgid), []);
    assert.equal(h.warnings.length, 1);
    assert.match(
      h.warnings[0] ?? "",
      /^gantry: hook on-story-fail \(echo \$\$ > .*; sleep 30\) timed out after 300 ms/,
    );
    assert.doesNotMatch(h.warnings[0] ?? "", /\n/);
    assert.equal(recorded(next).length, 1, "the next command still ran");
  });

  it("says when a hook that timed out ignored SIGTERM and was killed with SIGKILL", async () => {
    const h = harness({ "on-story-fail": [{ command: "trap '' TERM; sleep 30", timeoutMs: 300 }] });
    h.bus.emit("story:fail", { story: story("US-1"), reason: "x" });
    assert.deepEqual(await h.bus.flush(10_000), []);
    h.dispose();
    assert.equal(h.warnings.length, 1);
    assert.match(
      h.warnings[0] ?? "",
      /timed out after 300 ms and was killed with SIGKILL: it did not stop on SIGTERM; the run goes on$/,
    );
  });

  it("Ctrl-C (the run's signal) stops a running hook without a warning", async () => {
    const pidFile = join(work, "interrupted.pid");
    const h = harness({ "on-story-skip": `echo $$ > "${pidFile}"; sleep 30` });
    h.bus.emit("story:skip", { story: story("US-1"), reason: "x" });
    setTimeout(() => h.abort.abort(), 200);
    const started = performance.now();
    assert.deepEqual(await h.bus.flush(10_000), []);
    assert.ok(performance.now() - started < 3000);
    h.dispose();
    assert.deepEqual(liveInGroup(Number(readFileSync(pidFile, "utf8").trim())), []);
    assert.deepEqual(h.warnings, []);
    assert.match(h.logs.find((l) => l.obj.hook === "on-story-skip")?.msg ?? "", /interrupted/);
  });

  it("on-story-start exit 2 vetoes the story with the hook's standard error as the reason", async () => {
    const later = join(work, "after-veto.jsonl");
    const h = harness({
      "on-story-start": [
        `if [ "$GANTRY_STORY_ID" = US-1 ]; then echo "  not on a Friday  " >&2; exit 2; fi; if [ "$GANTRY_STORY_ID" = US-2 ]; then exit 2; fi`,
        record(later),
      ],
      "on-story-fail": "exit 2",
    });
    h.bus.emit("story:start", { story: story("US-1"), tier: "fast" });
    h.bus.emit("story:start", { story: story("US-2"), tier: "fast" });
    h.bus.emit("story:start", { story: story("US-3"), tier: "fast" });
    h.bus.emit("story:fail", { story: story("US-3"), reason: "x" });
    await h.bus.flush(10_000);
    h.dispose();
    assert.deepEqual(h.vetoes, [
      ["US-1", "not on a Friday"],
      ["US-2", "no reason given"],
    ]);
    // After a veto the remaining on-story-start commands do not run; for US-3 they do.
    assert.deepEqual(
      recorded(later).map((c) => c.env.GANTRY_STORY_ID),
      ["US-3"],
    );
    // Exit 2 anywhere else is an ordinary failure.
    assert.equal(h.warnings.length, 1);
    assert.match(h.warnings[0] ?? "", /^gantry: hook on-story-fail \(exit 2\) exited with code 2/);
  });

  it("a failing hook is a one-line warning naming hook, command and exit code; the other hooks still run", async () => {
    const out = join(work, "after-fail.jsonl");
    const h = harness({
      "on-story-fail": [`echo 'notify-send: not found' >&2; exit 127`, record(out)],
      "on-complete": record(out),
    });
    h.bus.emit("story:fail", { story: story("US-1"), reason: "x" });
    h.bus.emit("run:complete", {
      summary: {
        passed: 0,
        failed: 1,
        skipped: 0,
        blocked: 0,
        paused: 0,
        durationMs: 1,
        costUsd: 0,
        costBasis: "exact",
      },
      exitCode: 1,
    });
    await h.bus.flush(10_000);
    h.dispose();
    assert.deepEqual(
      recorded(out).map((c) => c.env.GANTRY_HOOK),
      ["on-story-fail", "on-complete"],
    );
    assert.deepEqual(h.warnings, [
      "gantry: hook on-story-fail (echo 'notify-send: not found' >&2; exit 127) exited with code 127: notify-send: not found; the run goes on",
    ]);
    const warned = h.logs.find((l) => l.level === "warn");
    assert.equal(warned?.obj.exitCode, 127);
    assert.equal(warned?.obj.hook, "on-story-fail");
  });

  it("a hook that cannot start (no such directory) warns and the run goes on", async () => {
    const h = harness({ "on-start": "true" }, join(work, "does-not-exist"));
    h.bus.emit("run:start", { feature: "checkout", totalStories: 1 });
    assert.deepEqual(await h.bus.flush(10_000), []);
    h.dispose();
    assert.equal(h.warnings.length, 1);
    assert.match(
      h.warnings[0] ?? "",
      /^gantry: hook on-start \(true\) could not start: working directory does not exist/,
    );
  });

  it("runs a list in order, one after the other, and skips enabled: false", async () => {
    const out = join(work, "order.txt");
    const h = harness({
      "on-story-complete": [
        `sleep 0.2; echo one >> "${out}"`,
        { command: `echo disabled >> "${out}"`, enabled: false },
        { command: `echo two >> "${out}"` },
      ],
      "on-pause": { command: `echo paused >> "${out}"`, enabled: false },
    });
    h.bus.emit("story:complete", {
      story: story("US-1"),
      metrics: { durationMs: 1, costUsd: 0, attempts: 1, tier: "fast", agentCalls: 1 },
    });
    h.bus.emit("run:pause", { reason: "x" });
    await h.bus.flush(10_000);
    h.dispose();
    assert.equal(readFileSync(out, "utf8"), "one\ntwo\n");
    assert.deepEqual(h.warnings, []);
  });

  it("hook output goes to the run log, not the terminal", async () => {
    const h = harness({ "on-resume": `echo "hello from the hook"; echo "and its stderr" >&2` });
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      written.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stdout.write;
    try {
      h.bus.emit("run:resume", { reason: "approved" });
      await h.bus.flush(10_000);
    } finally {
      process.stdout.write = write;
      h.dispose();
    }
    const entry = h.logs.find((l) => l.obj.hook === "on-resume");
    assert.equal(entry?.level, "info");
    assert.match(String(entry?.obj.output), /hello from the hook\n[\s\S]*and its stderr/);
    assert.equal(
      written.some((w) => w.includes("hello from the hook")),
      false,
    );
  });

  it("nothing is subscribed when no hooks are configured, and dispose unsubscribes", async () => {
    const out = join(work, "disposed.jsonl");
    const h = harness({ "on-start": record(out) });
    h.dispose();
    h.bus.emit("run:start", { feature: "checkout", totalStories: 0 });
    assert.deepEqual(await h.bus.flush(1000), []);
    assert.equal(existsSync(out), false);
  });
});

describe("hook config validation", () => {
  it("rejects an unknown hook event, naming the valid ones", () => {
    assert.throws(
      () => parseConfig(".gantry/config.json", { hooks: { "on-finish": "echo done" } }),
      (error: unknown) =>
        error instanceof InputError &&
        error.exitCode === 2 &&
        error.message.includes("hooks") &&
        error.message.includes('"on-finish"') &&
        error.message.includes(
          "valid hook events: on-start, on-story-start, on-story-complete, on-story-fail, on-story-skip, on-escalate, on-pause, on-resume, on-complete, on-error",
        ),
    );
  });

  it("loads every accepted shape from .gantry/config.json and rejects a misspelt key inside an entry", () => {
    const root = freshDir();
    mkdirSync(join(root, ".gantry"));
    const file = join(root, ".gantry", "config.json");
    writeFileSync(
      file,
      JSON.stringify({
        hooks: {
          "on-start": "echo start",
          "on-story-fail": [{ command: "notify-send failed", timeoutMs: 5000 }, "echo also"],
          "on-complete": { command: "echo off", enabled: false },
        },
      }),
    );
    const config = loadConfig(root);
    assert.equal(config.hooks["on-start"], "echo start");
    assert.equal(Array.isArray(config.hooks["on-story-fail"]), true);
    writeFileSync(file, JSON.stringify({ hooks: { "on-start": { command: "x", timeout: 5 } } }));
    assert.throws(() => loadConfig(root), /hooks\.on-start: Unrecognized key: "timeout"/);
  });
});

/** Live (not zombie) processes whose process group is `pgid`, from /proc. */
function liveInGroup(pgid: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid || fields[0] === "Z" || fields[0] === "X") continue;
      found.push(readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim());
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
