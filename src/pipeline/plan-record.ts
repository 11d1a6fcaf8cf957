import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LEDGER_FILE, RUN_SCOPE } from "../ledger/entry.js";
import { ledgerKey } from "../ledger/key.js";
import { signEntry } from "../ledger/mac.js";
import { PLAN_RECORD_DIR } from "../ledger/plan-ledgers.js";
import type { Judged, Verdict } from "../model/ledger.js";
import { CRITIQUE_FILE, type PlanCritiqueFile } from "../plan/critique-file.js";
import { writeJsonAtomic } from "../util/atomic-write.js";

/**
 * What `gantry plan` keeps of itself (it has no run folder): the prompt and answer of each session of the
 * last plan, replaced at the next one, and the plan's ledger, appended to.
 */
export class PlanRecord {
  readonly dir: string;

  constructor(
    private readonly root: string,
    readonly featureDir: string,
  ) {
    this.dir = join(featureDir, PLAN_RECORD_DIR);
  }

  /** Empties the record of the last plan, its ledger kept. */
  start(): void {
    if (!existsSync(this.dir)) return;
    for (const name of readdirSync(this.dir))
      if (name !== LEDGER_FILE) rmSync(join(this.dir, name), { recursive: true, force: true });
  }

  write(name: string, text: string): void {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(join(this.dir, name), text);
  }

  /** One signed line, gate `plan-critique`, bound to the tree the plan was critiqued on. */
  verdict(input: {
    runId: string;
    feature: string;
    verdict: Verdict;
    judged: Judged;
    detail: Record<string, unknown>;
  }): void {
    mkdirSync(this.dir, { recursive: true });
    const entry = signEntry(
      {
        v: 1,
        runId: input.runId,
        feature: input.feature,
        storyId: RUN_SCOPE,
        gate: "plan-critique",
        verdict: input.verdict,
        sha: input.judged.sha,
        tree: input.judged.tree,
        at: new Date().toISOString(),
        attempt: 1,
        detail: input.detail,
      },
      ledgerKey(this.root).key,
    );
    appendFileSync(join(this.dir, LEDGER_FILE), `${JSON.stringify(entry)}\n`);
  }

  /** The critique of the plan now in prd.json, replacing the last one's. */
  critique(doc: PlanCritiqueFile): void {
    writeJsonAtomic(join(this.featureDir, CRITIQUE_FILE), doc);
  }
}
