import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** The `quality.commands` keys `gantry init` fills in (acceptance is the user's to write). */
export const COMMAND_KEYS = ["test", "testScoped", "lint", "lintFix", "typecheck", "formatFix"] as const;
export type CommandKey = (typeof COMMAND_KEYS)[number];

export const STACKS = ["node", "python", "go", "rust"] as const;
export type Stack = (typeof STACKS)[number];

/** A command and what it was found from: "vitest in devDependencies". */
export interface Found {
  command: string;
  source: string;
}

/** What one stack's detector saw in the project. */
export interface StackResult {
  stack: Stack;
  /** The files that made the stack count: "package.json", "pyproject.toml, requirements.txt". */
  manifest: string;
  commands: Partial<Record<CommandKey, Found>>;
  /** What it could not do, and why: "typescript is a dependency but there is no tsconfig.json". */
  notes: string[];
}

/** Read-only view of the project's top-level files; detection never looks deeper than the root. */
export class ProjectFiles {
  private entries: string[] | undefined;

  constructor(readonly root: string) {}

  has(name: string): boolean {
    return existsSync(join(this.root, name));
  }

  isFile(name: string): boolean {
    try {
      return statSync(join(this.root, name)).isFile();
    } catch {
      return false;
    }
  }

  /** The file's text, or undefined when it is missing or not a file. */
  read(name: string): string | undefined {
    if (!this.isFile(name)) return undefined;
    return readFileSync(join(this.root, name), "utf8");
  }

  /** Names at the root matching `pattern`, sorted. */
  matching(pattern: RegExp): string[] {
    this.entries ??= existsSync(this.root) ? readdirSync(this.root).sort() : [];
    return this.entries.filter((name) => pattern.test(name));
  }

  /** The file's path as a user would type it from the current directory, for messages. */
  display(name: string): string {
    const path = join(this.root, name);
    return relative(process.cwd(), path) || path;
  }

  /** The first of `names` that exists at the root. */
  first(names: readonly string[]): string | undefined {
    return names.find((name) => this.has(name));
  }
}

/** `pytest_cov`, `PyTest` → `pytest-cov`, `pytest`: package names compared as their registries do. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[._]+/g, "-");
}
