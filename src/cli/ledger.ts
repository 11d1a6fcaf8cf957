import { InputError } from "../config/input-error.js";
import { openRepo } from "../git/repo.js";
import { committedMandatoryGates } from "../ledger/committed-gates.js";
import { describeGate, gateStates, shortHash } from "../ledger/gate-rule.js";
import { keyFile, readLedgerKey } from "../ledger/key.js";
import {
  byStart,
  describePlan,
  latestPlanVerdicts,
  planRuns,
  readPlanLedgers,
} from "../ledger/plan-ledgers.js";
import {
  byTime,
  forgedNotes,
  listRuns,
  RUNS_DIR,
  type RunLedger,
  readRunLedger,
  readRunLedgers,
  skippedNotes,
} from "../ledger/runs.js";
import { EXIT } from "../model/exit-codes.js";
import type { Judged } from "../model/ledger.js";
import { formatLedgerTable } from "./ledger-table.js";
import { projectRoot } from "./project.js";

/**
 * `gantry ledger`: the gate verdicts of one run, or of one `gantry plan` (its `plan-critique` line, from the
 * feature's plan ledger): the newest unless --run names one.
 */
export async function ledgerCommand(options: {
  dir?: string;
  run?: string;
  json?: boolean;
}): Promise<number> {
  const root = projectRoot(options.dir);
  const key = readLedgerKey(root);
  const plans = planRuns(readPlanLedgers(root, key?.key));
  const runs = byStart([...listRuns(root), ...plans.map((plan) => plan.runId)]);
  if (options.run !== undefined && !runs.includes(options.run)) {
    const newest = runs.at(-1);
    throw new InputError(
      "--run",
      "",
      `no run ${JSON.stringify(options.run)} under ${RUNS_DIR}/ and no plan of that id${newest ? ` (newest: ${newest})` : ""}`,
      "GANTRY_E_NOT_FOUND",
    );
  }
  const runId = options.run ?? runs.at(-1);
  if (runId === undefined) {
    if (options.json) process.stdout.write("[]\n");
    else process.stdout.write(`no runs under ${RUNS_DIR}/ yet; \`gantry run\` records gate verdicts there\n`);
    return 0;
  }
  const plan = plans.find((p) => p.runId === runId);
  const ledger = plan ?? readRunLedger(root, runId, key?.key);
  for (const note of macNotes(root, [ledger], key !== undefined)) process.stderr.write(`${note}\n`);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(ledger.entries)}\n`);
    return 0;
  }
  const feature = ledger.all[0]?.feature;
  const count = `${ledger.entries.length} verdict${ledger.entries.length === 1 ? "" : "s"}`;
  const forged = ledger.forged.length > 0 ? ` (and ${ledger.forged.length} without a valid MAC, marked)` : "";
  const what = plan ? `plan ${runId} in ${plan.file}` : `run ${runId}`;
  process.stdout.write(`${what}${feature ? ` (feature ${feature})` : ""}: ${count}${forged}\n`);
  if (ledger.all.length > 0) process.stdout.write(formatLedgerTable(ledger.all, new Set(ledger.forged)));
  return 0;
}

/**
 * `gantry ledger check`: exit 0 only if every mandatory gate's latest verdict on the current working
 * tree, across every run's ledger, is pass or not-applicable; else 1, naming each gate that is not.
 * Made for a pre-commit hook: each ledger file is read once and the tree is hashed once.
 */
export async function ledgerCheckCommand(options: {
  dir?: string;
  json?: boolean;
  feature?: string;
  /** With --json: takes the report instead of stdout (merge-shards prints it inside its own one document). */
  onJson?: (report: Record<string, unknown>) => void;
}): Promise<number> {
  const root = projectRoot(options.dir);
  const judged = await judgeWorkingTree(root);
  const { mandatory, source } = await committedMandatoryGates(root);
  const key = readLedgerKey(root);
  const runLedgers = readRunLedgers(root, key?.key);
  // The plans' ledgers are read by the same MAC rule; plan-critique is never a mandatory gate (it judges a
  // plan, not a tree to commit), so their verdicts are reported beside the gates, not counted among them.
  const planLedgers = readPlanLedgers(root, key?.key);
  const ledgers = [...runLedgers, ...planLedgers];
  for (const note of macNotes(root, ledgers, key !== undefined)) process.stderr.write(`${note}\n`);
  const plans = latestPlanVerdicts(planLedgers, options.feature);
  let entries = byTime(ledgers);
  if (options.feature !== undefined) entries = entries.filter((entry) => entry.feature === options.feature);
  const states = gateStates(entries, judged.tree, mandatory);
  const ok = states.every((state) => state.ok);

  if (options.json) {
    const gates = states.map((state) => ({
      gate: state.gate,
      ok: state.ok,
      verdict: state.latest?.verdict ?? null,
      ...(state.latest
        ? { runId: state.latest.runId, storyId: state.latest.storyId, at: state.latest.at }
        : {}),
      message: describeGate(state),
    }));
    const unverified = ledgers.reduce((sum, ledger) => sum + ledger.forged.length, 0);
    const report = { ok, tree: judged.tree, sha: judged.sha, mandatory, gatesFrom: source, gates, plans };
    const full = { ...report, key: key !== undefined, unverified };
    if (options.onJson) options.onJson(full);
    else process.stdout.write(`${JSON.stringify(full)}\n`);
    return ok ? EXIT.ok : EXIT.failed;
  }
  const tree = `tree ${shortHash(judged.tree)}`;
  const from = `  mandatory gates from ${source}\n${plans.map((plan) => `  ${describePlan(plan)}\n`).join("")}`;
  if (mandatory.length === 0) {
    process.stdout.write(
      `gantry ledger check: no mandatory gates configured (gates.mandatory is empty)\n${from}`,
    );
    return 0;
  }
  if (ok) {
    process.stdout.write(
      `gantry ledger check: every mandatory gate passed on ${tree} (${mandatory.join(", ")})\n${from}`,
    );
    return 0;
  }
  const unmet = states.filter((state) => !state.ok);
  const none = runLedgers.length === 0 ? `; no runs under ${RUNS_DIR}/` : "";
  process.stdout.write(
    `gantry ledger check: ${unmet.length} of ${mandatory.length} mandatory gates not passed on ${tree}${none}\n`,
  );
  for (const state of unmet) process.stdout.write(`  ${describeGate(state)}\n`);
  if (key === undefined && ledgers.some((ledger) => ledger.all.length > 0)) {
    process.stdout.write(`  ${noKeyReason(root)}\n`);
  }
  process.stdout.write(from);
  return EXIT.failed;
}

/**
 * What stderr says about lines that do not count: torn ones, and those without a valid MAC. With no
 * key on this machine, one line says why none can count instead of one per ledger.
 */
function macNotes(root: string, ledgers: RunLedger[], haveKey: boolean): string[] {
  const notes = skippedNotes(ledgers);
  if (haveKey) return [...notes, ...forgedNotes(ledgers)];
  const lines = ledgers.reduce((sum, ledger) => sum + ledger.forged.length, 0);
  if (lines > 0)
    notes.push(`gantry: ${lines} ledger line${lines === 1 ? "" : "s"} ignored: ${noKeyReason(root)}`);
  return notes;
}

function noKeyReason(root: string): string {
  return (
    `no ledger key for this repository on this machine (${keyFile(root) ?? "no git repository"}), so no verdict ` +
    "can be verified: check the ledger on the machine that wrote it, or copy its key there (docs/ledger.md)"
  );
}

/** The tree the check judges: the whole working tree, `.gantry/` excluded (see docs/ledger.md). */
async function judgeWorkingTree(root: string): Promise<Judged> {
  try {
    const repo = await openRepo(root);
    try {
      return await repo.judge();
    } finally {
      repo.close();
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/not a git repository/i.test(message)) {
      throw new InputError(
        root,
        "",
        "not inside a git repository; the ledger judges a git working tree",
        "GANTRY_E_REPO",
      );
    }
    throw error;
  }
}
