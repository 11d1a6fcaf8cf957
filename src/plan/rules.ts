import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../config/input-error.js";

/** The project's rules for plans, optional: `gantry plan`'s critic cites them, `gantry rules` lists them. */
export const RULES_FILE = ".gantry/rules.md";

export const RULE_STATUSES = ["binding", "proposed"] as const;
export type RuleStatus = (typeof RULE_STATUSES)[number];

export interface Rule {
  id: string;
  status: RuleStatus;
  text: string;
  /** 1-based line of the rule in the file. */
  line: number;
}

/** `R-03`, `SEC-1`: capital letters, a dash, digits. */
export const RULE_ID_PATTERN = /^[A-Z][A-Z0-9]*-\d+$/;

/** A list item that starts with something shaped like a rule id is meant as a rule. */
const RULE_ITEM = /^\s*[-*]\s+(?:\*\*)?([A-Z][A-Z0-9]*-\d+)(?:\*\*)?(?=\s|$)(.*)$/;
const RULE_REST = /^\s+(?:\*\*)?([A-Za-z]+)(?:\*\*)?:\s*(.*)$/;

/**
 * Reads a rules file: every list item `- <ID> <binding|proposed>: <text>` is a rule (the text may go on in
 * indented lines below it); headings and prose around them are for people. Every problem is returned at
 * once, each naming its line.
 */
export function parseRules(text: string, file: string): { rules: Rule[]; errors: InputError[] } {
  const rules: Rule[] = [];
  const errors: InputError[] = [];
  const seen = new Map<string, number>();
  let last: Rule | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const item = RULE_ITEM.exec(raw);
    if (!item) {
      if (last && /^\s{2,}\S/.test(raw)) last.text = `${last.text} ${raw.trim()}`;
      else last = undefined;
      return;
    }
    last = undefined;
    const [, id = "", after = ""] = item;
    const rest = RULE_REST.exec(after);
    const status = rest?.[1]?.toLowerCase();
    if (!rest || !(RULE_STATUSES as readonly string[]).includes(status ?? "")) {
      errors.push(
        new InputError(
          file,
          `line ${line}`,
          `expected "- ${id} binding: <rule>" or "- ${id} proposed: <rule>"`,
          "GANTRY_E_RULES",
        ),
      );
      return;
    }
    const ruleText = (rest[2] ?? "").trim();
    if (ruleText === "") {
      errors.push(
        new InputError(file, `line ${line}`, `${id} says nothing after "${status}:"`, "GANTRY_E_RULES"),
      );
      return;
    }
    const first = seen.get(id);
    if (first !== undefined) {
      errors.push(
        new InputError(file, `line ${line}`, `${id} is already the rule of line ${first}`, "GANTRY_E_RULES"),
      );
      return;
    }
    seen.set(id, line);
    last = { id, status: status as RuleStatus, text: ruleText, line };
    rules.push(last);
  });
  return { rules, errors };
}

/** The project's rules, or undefined without a rules file; a file with problems throws the first, naming all. */
export function loadRules(root: string): Rule[] | undefined {
  const path = join(root, RULES_FILE);
  if (!existsSync(path)) return undefined;
  const { rules, errors } = parseRules(readFileSync(path, "utf8"), RULES_FILE);
  const [first] = errors;
  if (first) {
    if (errors.length === 1) throw first;
    throw new InputError(
      RULES_FILE,
      "",
      errors.map((e) => e.message.slice(RULES_FILE.length + 2)).join("; "),
      "GANTRY_E_RULES",
    );
  }
  return rules;
}
