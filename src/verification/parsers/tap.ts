/**
 * TAP (Test Anything Protocol, versions 12 to 14): `ok` / `not ok` lines, plans, `# SKIP` / `# TODO`
 * directives, YAML diagnostics, `Bail out!`. Only top-level test lines are counted; indented ones are
 * subtests whose parent line already summarises them. With `nested`, failing subtests are listed too
 * (node's reporter puts the real failures there and marks the parents as suites).
 */
import type { TestFailure } from "../../model/verify.js";
import type { ParsedTests, TestOutputParser } from "./types.js";
import { FailureList, failure, finish, indentOf, sample, splitLines, unparsed } from "./util.js";

export interface TapScan {
  passed: number;
  failed: number;
  skipped: number;
  /** Top-level test lines seen. */
  ran: number;
  /** Sum of the top-level plans (`1..N`); undefined when no plan was printed. */
  planned?: number;
  planSkipReason?: string;
  bailOut?: string;
  failures: TestFailure[];
  /** Top-level `# key N` comments (`# tests 4`, `# pass 3`, ...), last value wins. */
  comments: Map<string, number>;
}

/** A failing test line whose diagnostics (YAML block, comments, indented text) are still coming. */
interface Pending {
  name: string;
  indent: number;
  yaml: Map<string, string>;
  yamlKey?: string;
  notes: string[];
  file?: string;
}

const TEST_LINE = /^(not ok|ok)\b\s*(\d+)?\s*(?:-\s+|-$)?(.*)$/;
const DIRECTIVE = /(?:^|\s)#\s*(skip|todo)\b\s*(.*)$/i;

function unquote(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && ((v[0] === "'" && v.endsWith("'")) || (v[0] === '"' && v.endsWith('"')))) {
    return v.slice(1, -1).replace(/''/g, "'");
  }
  return v;
}

export function scanTap(text: string, options: { nested?: boolean } = {}): TapScan {
  const scan: TapScan = { passed: 0, failed: 0, skipped: 0, ran: 0, failures: [], comments: new Map() };
  const failures = new FailureList();
  const subtests: { indent: number; name: string }[] = [];
  let pending: Pending | undefined;
  /** Indent of the last test line, and whether its YAML block is being read. */
  let testIndent = -1;
  let inYaml = false;

  const flush = (): void => {
    const p = pending;
    pending = undefined;
    if (!p) return;
    const type = p.yaml.get("type") ?? "";
    const failureType = p.yaml.get("failureType") ?? "";
    if (options.nested && (type === "suite" || failureType === "subtestsFailed")) return;
    const message = p.yaml.get("error") ?? p.yaml.get("message") ?? p.notes.join("\n");
    const location = p.yaml.get("location") ?? p.yaml.get("at") ?? p.file;
    const file = location ? location.replace(/(?::\d+){1,2}$/, "") : undefined;
    failures.add(failure(p.name, message || "not ok", file));
  };

  for (const raw of splitLines(text)) {
    const indent = indentOf(raw);
    if (inYaml) {
      // Passing tests' diagnostics are skipped without being read.
      if (indent <= testIndent + 4 && raw.endsWith("...") && raw.trim() === "...") {
        inYaml = false;
        continue;
      }
      if (pending) readYaml(pending, raw.slice(indent).trimEnd(), indent);
      continue;
    }
    const line = indent === 0 ? raw.trimEnd() : raw.slice(indent).trimEnd();
    const first = line.charCodeAt(0);
    // "o" (ok) and "n" (not ok) are the only starts of a test line.
    const test = first === 111 || first === 110 ? TEST_LINE.exec(line) : null;
    if (test) {
      flush();
      testIndent = indent;
      const ok = test[1] === "ok";
      let description = test[3] ?? "";
      let directive = "";
      const d = description.includes("#") ? DIRECTIVE.exec(description) : null;
      if (d) {
        directive = (d[1] as string).toLowerCase();
        description = description.slice(0, d.index);
      }
      while (subtests.length && (subtests[subtests.length - 1] as { indent: number }).indent > indent) {
        subtests.pop();
      }
      const own = subtests[subtests.length - 1];
      if (own && own.indent === indent) subtests.pop();
      if (indent === 0) {
        scan.ran++;
        if (directive) scan.skipped++;
        else if (ok) scan.passed++;
        else scan.failed++;
      }
      if (!ok && directive !== "todo" && (options.nested || indent === 0)) {
        const leaf = description.trim().replace(/\\#/g, "#") || `test ${test[2] ?? ""}`.trim();
        const name =
          options.nested && subtests.length ? [...subtests.map((t) => t.name), leaf].join(" > ") : leaf;
        pending = { name, indent, yaml: new Map(), notes: [] };
      }
      continue;
    }
    if (line === "---" && testIndent >= 0 && indent > testIndent) {
      inYaml = true;
      continue;
    }
    if (indent === 0 && line.startsWith("1..")) {
      const plan = /^1\.\.(\d+)\s*(?:#\s*(?:skip\w*)?\s*(.*))?$/i.exec(line);
      if (plan) {
        flush();
        scan.planned = (scan.planned ?? 0) + Number(plan[1]);
        if (plan[1] === "0" && plan[2] !== undefined) scan.planSkipReason = plan[2].trim() || "skipped";
        continue;
      }
    }
    if (indent === 0 && /^Bail out!/i.test(line)) {
      flush();
      scan.bailOut = line.replace(/^Bail out!\s*/i, "").trim() || "Bail out!";
      continue;
    }
    if (first === 35 /* # */) {
      const subtest = /^# Subtest: (.*)$/.exec(line);
      if (subtest) {
        flush();
        testIndent = -1;
        while (subtests.length && (subtests[subtests.length - 1] as { indent: number }).indent >= indent) {
          subtests.pop();
        }
        subtests.push({ indent, name: (subtest[1] as string).trim() });
        continue;
      }
      const count = indent === 0 ? /^#\s+([a-z_]+)\s+(\d+(?:\.\d+)?)$/.exec(line) : null;
      if (count) {
        scan.comments.set(count[1] as string, Number(count[2]));
        continue;
      }
      if (pending) readNote(pending, line.replace(/^#\s?/, "").trim());
      continue;
    }
    if (pending && indent > pending.indent && line && pending.notes.length < 12 && !/^at /.test(line)) {
      pending.notes.push(line);
    }
  }
  flush();
  scan.failures = failures.items;
  return scan;
}

function readYaml(pending: Pending, line: string, indent: number): void {
  const kv = /^([\w-]+):\s*(.*)$/.exec(line);
  if (kv && indent <= pending.indent + 2) {
    const [, key, value] = kv as unknown as [string, string, string];
    pending.yamlKey = value === "|-" || value === "|" || value === ">-" ? key : undefined;
    if (!pending.yamlKey) pending.yaml.set(key, unquote(value));
  } else if (pending.yamlKey && line) {
    const previous = pending.yaml.get(pending.yamlKey);
    if (!previous || previous.split("\n").length < 12) {
      pending.yaml.set(pending.yamlKey, previous ? `${previous}\n${line}` : line);
    }
  }
}

/** A `# ...` diagnostic after a failing line (Test::More style): message lines and `at FILE line N.` */
function readNote(pending: Pending, note: string): void {
  const at = /^at (\S+) line \d+\.?$/.exec(note);
  if (at) pending.file ??= at[1];
  else if (
    note &&
    !/^Failed (?:\(TODO\) )?test\b/.test(note) &&
    !/^Looks like/.test(note) &&
    pending.notes.length < 12
  ) {
    pending.notes.push(note);
  }
}

export function tapToParsed(runner: string, scan: TapScan): ParsedTests {
  if (scan.bailOut !== undefined) {
    const failures = [...scan.failures, failure("Bail out!", scan.bailOut)];
    return finish(runner, { ...scan, failures, buildError: `the run bailed out: ${scan.bailOut}` });
  }
  if (scan.ran === 0 && scan.planned === undefined) return unparsed(runner, "no TAP test line or plan found");
  const failures = [...scan.failures];
  if (scan.planned !== undefined && scan.ran < scan.planned) {
    if (scan.ran === 0) {
      return finish(runner, {
        ...scan,
        buildError: `planned ${scan.planned} tests but none ran: the test script stopped before its first test`,
      });
    }
    failures.push(failure("(plan)", `planned ${scan.planned} tests but only ${scan.ran} ran`));
  }
  const noTestsReason =
    scan.planSkipReason !== undefined
      ? `the plan skips every test: ${scan.planSkipReason}`
      : "the TAP plan is 1..0";
  return finish(runner, {
    passed: scan.passed,
    failed: scan.failed,
    skipped: scan.skipped,
    failures,
    noTestsReason,
  });
}

export const tapParser: TestOutputParser = {
  name: "tap",
  looksFor: "a TAP plan (`1..N`), `TAP version` line, or numbered `ok N` lines",
  detect(text) {
    const s = sample(text);
    // A plan, a version line, or (for a log whose head was cut off) numbered test lines.
    if (/^TAP version \d+$|^1\.\.\d+(?:[ \t]*#.*)?$/m.test(s)) return true;
    const numbered = /^(?:not )?ok \d+\b/gm;
    return numbered.test(s) && numbered.test(s);
  },
  parse: (text) => tapToParsed("tap", scanTap(text)),
};
