/**
 * What the server plays, whatever the provider's wire format: a script of turns. Each turn names the
 * requests it answers (a pattern the request's text matches: the CLI sends the whole conversation, the
 * prompt included, every time) and its steps: tool calls that read, edit or write files, then a final
 * message. The first turn that matches answers; which of its steps comes next is read from the request
 * itself (how many tool results the conversation holds), so a CLI's retries and side calls never move the
 * script on. The default script is one coding turn: read the module, edit it, write its test, then say the
 * completion marker.
 */

export const CART = "export function lineTotal(price, quantity) {\n  return price;\n}\n";
export const CART_FIXED = "export function lineTotal(price, quantity) {\n  return price * quantity;\n}\n";
export const CART_TEST =
  'import assert from "node:assert/strict";\nimport { test } from "node:test";\n' +
  'import { lineTotal } from "../src/cart.js";\n\ntest("lineTotal multiplies", () => {\n' +
  "  assert.equal(lineTotal(3, 4), 12);\n});\n";
export const FINAL_MESSAGE = "lineTotal now multiplies price by quantity, with a test.\n\n## STORY COMPLETE";

/**
 * A path in a script: as written (relative to the session's directory, or absolute), or taken from the
 * request: the first group a pattern captures in its text (a file the prompt names, such as an answer file).
 */
export type ScriptPath = string | RegExp;

export type ScriptStep =
  | { kind: "read"; path: ScriptPath }
  | { kind: "edit"; path: ScriptPath; oldText: string; newText: string }
  | { kind: "write"; path: ScriptPath; content: string }
  | { kind: "final"; text: string };

/** A step as a wire format sends it: its path found. */
export type Step =
  | { kind: "read"; path: string }
  | { kind: "edit"; path: string; oldText: string; newText: string }
  | { kind: "write"; path: string; content: string }
  | { kind: "final"; text: string };

export interface Turn {
  /** Names the turn in the server's record (`Recorded.turn`). */
  name: string;
  /** The requests this turn answers: a pattern the request's text matches. */
  when: RegExp;
  steps: readonly ScriptStep[];
}

export type Script = readonly Turn[];

export const STEPS: readonly ScriptStep[] = [
  { kind: "read", path: "src/cart.js" },
  { kind: "edit", path: "src/cart.js", oldText: "  return price;", newText: "  return price * quantity;" },
  { kind: "write", path: "test/cart.test.js", content: CART_TEST },
  { kind: "final", text: FINAL_MESSAGE },
];

export const CODING_SCRIPT: Script = [{ name: "coding", when: /[\s\S]/, steps: STEPS }];

/** What a model call plays: its turn's name and step, or `undefined` when no turn answers this request. */
export interface Played {
  turn: string;
  step: Step;
}

/** The step after `done` tool results of the first turn matching `requestText`; past the end, its last. */
export function play(script: Script, requestText: string, done: number): Played | undefined {
  const turn = script.find((t) => t.when.test(requestText));
  const scripted = turn?.steps[Math.min(done, turn.steps.length - 1)];
  if (!turn || !scripted) return undefined;
  if (scripted.kind === "final") return { turn: turn.name, step: scripted };
  const path = pathIn(scripted.path, requestText);
  if (path === undefined) {
    const text = `the script's ${turn.name} turn found no path matching ${scripted.path} in the request`;
    return { turn: turn.name, step: { kind: "final", text } };
  }
  return { turn: turn.name, step: { ...scripted, path } };
}

function pathIn(path: ScriptPath, requestText: string): string | undefined {
  if (typeof path === "string") return path;
  return path.exec(requestText)?.[1];
}

/** What a request no turn matches is answered: a final message that says so, recorded as `unmatched`. */
export const UNMATCHED: Played = {
  turn: "unmatched",
  step: { kind: "final", text: "the scripted model server has no turn for this request" },
};

/** What one model call is answered with, and how the server records it. */
export interface Move {
  step: Step;
  /** The step's kind, `side` (a call without file tools: a title, a check) or `unmatched`. */
  answered: string;
  turn?: string;
}

/**
 * The move for a request: a side call (no file tools offered) gets `sideText` and moves nothing on; any
 * other call plays the script.
 */
export function nextMove(script: Script, requestText: string, done: number, side: string | false): Move {
  if (side !== false) return { step: { kind: "final", text: side }, answered: "side" };
  const played = play(script, requestText, done);
  if (!played) return { step: UNMATCHED.step, answered: UNMATCHED.turn };
  return { step: played.step, answered: played.step.kind, turn: played.turn };
}

/**
 * The session's working directory as the CLI told the model (Claude Code, OpenCode and Codex want absolute
 * paths in their file tools): Claude Code's environment block, Codex's `<cwd>`, OpenCode's and Gemini's.
 */
export function workingDirectory(requestText: string): string | undefined {
  const patterns = [
    /Primary working directory: ([^\s"\\]+)/,
    /<cwd>([^<]+)<\/cwd>/,
    /Working directory: ([^\s"\\]+)/,
    /Workspace Directories:\*\*(?:\\n|\n)\s*- ([^\s"\\]+)/,
  ];
  for (const pattern of patterns) {
    const found = pattern.exec(requestText)?.[1];
    if (found) return found;
  }
  return undefined;
}

export function absolute(cwd: string | undefined, path: string): string {
  if (path.startsWith("/")) return path;
  return cwd ? `${cwd.replace(/\/$/, "")}/${path}` : path;
}

/** Tokens each answer reports: fixed, so a test can sum what the server reported and compare. */
export const USAGE = { input: 100, cachedInput: 20, output: 10 } as const;
