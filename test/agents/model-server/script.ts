/**
 * The scripted coding turn every provider plays, whatever its wire format: read the module, edit it, write
 * its test, then say the completion marker. Which step comes next is read from the request itself (how many
 * tool results the conversation holds), so a CLI's retries and side calls never move the script on.
 */

export const CART = "export function lineTotal(price, quantity) {\n  return price;\n}\n";
export const CART_FIXED = "export function lineTotal(price, quantity) {\n  return price * quantity;\n}\n";
export const CART_TEST =
  'import assert from "node:assert/strict";\nimport { test } from "node:test";\n' +
  'import { lineTotal } from "../src/cart.js";\n\ntest("lineTotal multiplies", () => {\n' +
  "  assert.equal(lineTotal(3, 4), 12);\n});\n";
export const FINAL_MESSAGE = "lineTotal now multiplies price by quantity, with a test.\n\n## STORY COMPLETE";

export type Step =
  | { kind: "read"; path: string }
  | { kind: "edit"; path: string; oldText: string; newText: string }
  | { kind: "write"; path: string; content: string }
  | { kind: "final"; text: string };

export const STEPS: readonly Step[] = [
  { kind: "read", path: "src/cart.js" },
  { kind: "edit", path: "src/cart.js", oldText: "  return price;", newText: "  return price * quantity;" },
  { kind: "write", path: "test/cart.test.js", content: CART_TEST },
  { kind: "final", text: FINAL_MESSAGE },
];

/** The step after `done` tool results; past the end, the final message again. */
export function stepAfter(done: number): Step {
  return STEPS[Math.min(done, STEPS.length - 1)] as Step;
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
  return cwd ? `${cwd.replace(/\/$/, "")}/${path}` : path;
}

/** Tokens each answer reports: fixed, so a test can sum what the server reported and compare. */
export const USAGE = { input: 100, cachedInput: 20, output: 10 } as const;
