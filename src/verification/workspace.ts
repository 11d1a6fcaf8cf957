import type { EventBus } from "../bus/event-bus.js";
import type { Config } from "../config/schema.js";
import type { GitRepo } from "../git/git-repo.js";
import type { VerdictBook } from "../ledger/book.js";
import type { JudgingSandbox } from "../process/judging-sandbox.js";
import type { Logger } from "../util/logger.js";

/** What verification and review need of a run: the tree, its config, the bus to report on, Ctrl-C. */
export interface Workspace {
  root: string;
  config: Config;
  signal: AbortSignal;
  bus: EventBus;
  /** The run's verdicts: each gate judged here is recorded in it (src/ledger/record.ts). */
  verdicts: VerdictBook;
  git: GitRepo;
  logger: Logger;
  /** The sandbox commands that change code (fixers) run under, when the run has one. */
  sandbox?: readonly string[];
  /** The sandbox judging commands (tests, lint, typecheck, checks) run under, when the run has one. */
  judging?: JudgingSandbox;
}

/** One story's work in a workspace: what it changed is measured from `baseSha`. */
export interface StoryWork {
  run: Workspace;
  story: { id: string };
  baseSha: string;
  /** 1-based pass number, recorded with each verdict. */
  pass: number;
}
