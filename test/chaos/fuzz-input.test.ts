import assert from "node:assert/strict";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { InputError, parseJsonText } from "../../src/config/input-error.js";
import { loadConfig, parseConfig } from "../../src/config/loader.js";
import { loadPrd, parsePrd } from "../../src/prd/load.js";
import { gantry, makeProject } from "../e2e/harness.js";
import { chaosSeed, Rng } from "./harness.js";
import type { Malformed } from "./malformed.js";
import { malformedConfig, validConfig } from "./malformed-config.js";
import { malformedPrd } from "./malformed-prd.js";

/**
 * Bad input, generated: ≥1,000 malformed configs and PRDs (seeded; GANTRY_CHAOS_SEED replays a run) go
 * through the functions `gantry validate` and `gantry run` use, and a sample through the built CLI. Each
 * must be refused with an InputError: one line, naming the file and the place in it, no stack trace, and
 * nothing written.
 */

const seed = chaosSeed();
const IN_PROCESS = Number.parseInt(process.env.GANTRY_FUZZ_CASES ?? "1200", 10);
const THROUGH_CLI = Number.parseInt(process.env.GANTRY_FUZZ_CLI_CASES ?? "10", 10);
const MAX_MESSAGE = 1_000;

type Target = "config" | "prd";

function generate(count: number, rng: Rng): { target: Target; input: Malformed }[] {
  return Array.from({ length: count }, (_, i) => {
    const target: Target = i % 2 === 0 ? "config" : "prd";
    return { target, input: target === "config" ? malformedConfig(rng) : malformedPrd(rng) };
  });
}

/** What is wrong with how `error` reports bad input in `file`, or undefined when it is right. */
function judgeError(error: unknown, file: string, input: Malformed): string | undefined {
  if (!(error instanceof InputError))
    return `threw ${(error as Error)?.name}: ${String((error as Error)?.message).slice(0, 200)}`;
  const message = error.message;
  if (!message.startsWith(`${file}: `)) return `does not start with the file: ${message.slice(0, 200)}`;
  if (/[\r\n]/.test(message)) return `is not one line: ${JSON.stringify(message.slice(0, 300))}`;
  if (message.length > MAX_MESSAGE) return `is ${message.length} characters long`;
  const fileLevel = input.kind === "empty";
  if (!fileLevel && error.where.trim() === "") return `names no place in the file: ${message.slice(0, 200)}`;
  return undefined;
}

function describeCase(c: { target: Target; input: Malformed }, problem: string): string {
  const shown =
    c.input.text.length > 120 ? `${c.input.text.slice(0, 120)}… (${c.input.text.length})` : c.input.text;
  return `${c.target} [${c.input.kind}] ${JSON.stringify(shown)}: ${problem}`;
}

describe(`malformed input (seed ${seed}; replay with GANTRY_CHAOS_SEED=${seed})`, { concurrency: 2 }, () => {
  it(`${IN_PROCESS} generated configs and PRDs are each refused with a one-line InputError naming file and path`, async () => {
    const rng = new Rng(seed);
    const cases = generate(IN_PROCESS, rng);
    const dir = mkdtempSync(join(tmpdir(), "gantry-fuzz-"));
    const problems: string[] = [];
    const kinds = new Map<string, number>();
    for (const [i, c] of cases.entries()) {
      // Yield now and then: the CLI sample runs alongside, and its children need the event loop.
      if (i % 10 === 0) await new Promise((r) => setImmediate(r));
      const kind = `${c.target}:${c.input.kind.split(" ")[0]}`;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      const file = c.target === "config" ? `config-${i}.json` : `prd-${i}.json`;
      // Most go through parse functions on text; every fifth through the file loaders themselves.
      const viaFile = i % 5 === 0;
      let error: unknown;
      try {
        if (viaFile) {
          const root = join(dir, String(i));
          const path = c.target === "config" ? join(root, ".gantry", "config.json") : join(root, "prd.json");
          mkdirSync(join(root, ".gantry"), { recursive: true });
          writeFileSync(path, c.input.text);
          if (c.target === "config") loadConfig(root);
          else loadPrd(path, file);
        } else if (c.target === "config") parseConfig(file, parseJsonText(file, c.input.text));
        else parsePrd(file, parseJsonText(file, c.input.text));
      } catch (caught) {
        error = caught;
      }
      const shownFile =
        viaFile && c.target === "config"
          ? relative(process.cwd(), join(dir, String(i), ".gantry", "config.json"))
          : file;
      const problem = error === undefined ? "was accepted" : judgeError(error, shownFile, c.input);
      if (problem) problems.push(describeCase(c, problem));
    }
    const tally = [...kinds].map(([k, n]) => `${k}=${n}`).join(" ");
    process.stdout.write(
      `# fuzz: ${cases.length} malformed inputs (${tally}); ${problems.length} mishandled\n`,
    );
    assert.deepEqual(problems.slice(0, 15), [], `${problems.length} of ${cases.length} mishandled`);
  });

  it(`${THROUGH_CLI} of them through the built CLI (validate or run, in turn): exit 2, one stderr line, nothing written`, async () => {
    const rng = new Rng(seed ^ 0x5eed);
    const cases = generate(THROUGH_CLI, rng);
    const workers = 4;
    const problems: string[] = [];
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        const root = makeProject({ stories: [{ id: "US-1", title: "One" }], plan: {} });
        for (let i = w; i < cases.length; i += workers) {
          const c = cases[i] as (typeof cases)[number];
          const rel = c.target === "config" ? ".gantry/config.json" : ".gantry/features/f/prd.json";
          writeFileSync(join(root, ".gantry", "config.json"), JSON.stringify(validConfig()));
          writeFileSync(join(root, rel), c.input.text);
          const before = snapshot(root);
          // Each case through one command, in turn (a CLI start costs ~0.4 s; GANTRY_FUZZ_CLI_CASES adds more).
          for (const args of [i % 2 === 0 ? ["validate"] : ["run", "--feature", "f"]]) {
            const result = await gantry(root, args, { timeoutMs: 30_000 });
            const lines = result.stderr.trimEnd().split("\n");
            const what = `${args[0]}: exit ${result.code}, stderr ${JSON.stringify(result.stderr.slice(0, 300))}`;
            if (result.code !== 2) problems.push(describeCase(c, what));
            else if (lines.length !== 1)
              problems.push(describeCase(c, `${lines.length} stderr lines; ${what}`));
            else if (!lines[0]?.startsWith(`gantry: ${rel}: `))
              problems.push(describeCase(c, `names not ${rel}; ${what}`));
            else if (!/ \[GANTRY_E_(CONFIG|PRD|JSON)\]$/.test(lines[0]))
              problems.push(describeCase(c, `no config, PRD or JSON error code; ${what}`));
            else if (/\n\s+at /.test(result.stderr)) problems.push(describeCase(c, `stack trace; ${what}`));
            else if (result.stderr.length > MAX_MESSAGE + 100)
              problems.push(describeCase(c, `stderr is ${result.stderr.length} long`));
            else if (result.stdout !== "")
              problems.push(describeCase(c, `wrote to stdout: ${result.stdout.slice(0, 200)}`));
          }
          const after = snapshot(root);
          if (existsSync(join(root, ".gantry", "runs")))
            problems.push(describeCase(c, ".gantry/runs appeared"));
          const changed = diff(before, after);
          if (changed.length > 0) problems.push(describeCase(c, `files changed: ${changed.join(", ")}`));
        }
      }),
    );
    assert.deepEqual(problems.slice(0, 10), [], `${problems.length} of ${cases.length} CLI calls mishandled`);
  });
});

/** Every file and directory under `root` (.git included) with its size and mtime. */
function snapshot(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      files.set(relative(root, path), `${stat.size}:${stat.mtimeMs}`);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk(root);
  return files;
}

function diff(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [path, stamp] of after) if (before.get(path) !== stamp) changed.push(path);
  for (const path of before.keys()) if (!after.has(path)) changed.push(`-${path}`);
  return changed;
}

describe("malformed input, examples", () => {
  it("a syntax error names its line and column, and the message stays one line", () => {
    const cases: [string, RegExp][] = [
      ['{"a": 1', /^f\.json: line 1, column 8: not valid JSON \(/],
      ['{\n  "a": tru\n\n  e}', /^f\.json: line 2, column 8: not valid JSON \(Unexpected token '\\n'\)$/],
      ['{"agent": \u0002{}}', /^f\.json: line 1, column 11: not valid JSON \(Unexpected token '\\u0002'\)$/],
      [
        '{"a":1}}',
        /^f\.json: line 1, column 8: not valid JSON \(Unexpected non-whitespace character after JSON\)$/,
      ],
    ];
    for (const [text, expected] of cases) {
      assert.throws(
        () => parseJsonText("f.json", text),
        (error: Error) => {
          assert.match(error.message, expected);
          return true;
        },
      );
    }
  });

  it("a key or id of a megabyte, or holding a newline or NUL, is shown escaped and shortened", () => {
    const huge = "k".repeat(1024 * 1024);
    assert.throws(
      () => parseConfig("c.json", { agent: { [huge]: 1 } }),
      (error: InputError) =>
        error.message.length < 300 &&
        /^c\.json: agent: unknown key "k+…\(\d+ characters\) expected one of /.test(error.message),
    );
    const prd = (dep: string) => ({ userStories: [{ id: "US-1", title: "One", dependencies: [dep] }] });
    assert.throws(
      () => parsePrd("p.json", prd("a\nb\u0000c")),
      (error: Error) =>
        /^p\.json: userStories\[0\]\.dependencies\[0\]: depends on "a\\nb\\u0000c", which is not a story in this PRD$/.test(
          error.message,
        ),
    );
  });

  it("a PRD whose unknown field nests deeper than it can be written back is refused at load, not mid-run", () => {
    const deep = JSON.parse(`${"[".repeat(20_000)}${"]".repeat(20_000)}`);
    const raw = { userStories: [{ id: "US-1", title: "One", notes: deep }] };
    assert.throws(
      () => parsePrd("p.json", raw),
      (error: Error) =>
        /^p\.json: userStories\[0\]\.notes\[0\]\[0\].*\(\d+ characters\): nested more than 64 levels deep$/.test(
          error.message,
        ),
    );
    const fine = { userStories: [{ id: "US-1", title: "One", notes: [[[{ a: [1] }]]] }] };
    assert.equal(parsePrd("p.json", fine).userStories.length, 1);
  });
});
