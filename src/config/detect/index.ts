/**
 * What `gantry init` finds in a project: each stack's detector looks at the root's files, then the
 * results are combined. In a repository with several stacks the first, in the order node, python, go,
 * rust, that has a test command is the primary one: its test commands are the only ones used (one
 * suite, parsed by one runner), and lint, typecheck and formatting commands it lacks are taken from
 * the other stacks in the same order. Node comes first because a package.json at the root of a mixed
 * repository is usually where its tooling lives.
 */
import { detectGo } from "./go.js";
import { detectNode } from "./node.js";
import { detectPython } from "./python.js";
import { detectRust } from "./rust.js";
import {
  COMMAND_KEYS,
  type CommandKey,
  type Found,
  ProjectFiles,
  type Stack,
  type StackResult,
} from "./types.js";

export { COMMAND_KEYS, type CommandKey, type Found, type Stack, type StackResult } from "./types.js";

export interface DetectedCommand extends Found {
  stack: Stack;
}

export interface Detection {
  /** Every stack found, in detection order. */
  stacks: StackResult[];
  /** The stack whose tests are used. */
  primary: Stack | undefined;
  commands: Partial<Record<CommandKey, DetectedCommand>>;
  /** Keys nothing was found for. */
  missing: CommandKey[];
  notes: string[];
}

/** Keys that come from one stack together: a lint fix belongs with its lint, scoped tests with tests. */
const GROUPS: readonly (readonly CommandKey[])[] = [["lint", "lintFix"], ["typecheck"], ["formatFix"]];

export function detectProject(root: string): Detection {
  const files = new ProjectFiles(root);
  const stacks = [detectNode, detectPython, detectGo, detectRust]
    .map((detect) => detect(files))
    .filter((s): s is StackResult => s !== undefined);
  const primary = stacks.find((s) => s.commands.test) ?? stacks[0];
  const ordered = primary ? [primary, ...stacks.filter((s) => s !== primary)] : [];
  const commands: Detection["commands"] = {};
  const take = (stack: StackResult, key: CommandKey) => {
    const found = stack.commands[key];
    if (found) commands[key] = { ...found, stack: stack.stack };
  };
  if (primary) {
    take(primary, "test");
    take(primary, "testScoped");
  }
  for (const group of GROUPS) {
    const from = ordered.find((s) => s.commands[group[0] as CommandKey]);
    if (from) for (const key of group) take(from, key);
  }
  const notes: string[] = [];
  for (const stack of stacks) {
    if (stack === primary || !stack.commands.test) continue;
    notes.push(
      `${stack.stack} also found (${stack.manifest}); its tests (${stack.commands.test.command}) are not used: ` +
        `${primary?.stack} comes first — set quality.commands.test by hand to run both`,
    );
  }
  return {
    stacks,
    primary: primary?.stack,
    commands,
    missing: COMMAND_KEYS.filter((key) => !commands[key]),
    notes,
  };
}
