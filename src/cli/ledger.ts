import { InputError } from "../config/input-error.js";
import { loadConfig } from "../config/loader.js";
import { mandatoryGates } from "../config/schema.js";
import { openRepo } from "../git/repo.js";
import { describeGate, gateStates, shortHash } from "../ledger/gate-rule.js";
import { byTime, listRuns, RUNS_DIR, readRunLedger, readRunLedgers, skippedNotes } from "../ledger/runs.js";
import { EXIT } from "../model/exit-codes.js";
import type { Judged } from "../model/ledger.js";
import { formatLedgerTable } from "./ledger-table.js";
import { projectRoot } from "./project.js";

/** `gantry ledger`: the gate verdicts of one run (the newest unless --run names one). */
export async function ledgerCommand(options: {
  dir?: string;
  run?: string;
  json?: boolean;
}): Promise<number> {
  const root = projectRoot(options.dir);
  const runs = listRuns(root);
  if (options.run !== undefined && !runs.includes(options.run)) {
    const newest = runs.at(-1);
    throw new InputError(
      "--run",
      "",
      `no run ${JSON.stringify(options.run)} under ${RUNS_DIR}/${newest ? ` (newest: ${newest})` : ""}`,
    );
  }
  const runId = options.run ?? runs.at(-1);
  if (runId === undefined) {
    if (options.json) process.stdout.write("[]\n");
    else process.stdout.write(`no runs under ${RUNS_DIR}/ yet; \`gantry run\` records gate verdicts there\n`);
    return 0;
  }
  const ledger = readRunLedger(root, runId);
  for (const note of skippedNotes([ledger])) process.stderr.write(`${note}\n`);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(ledger.entries)}\n`);
    return 0;
  }
  const feature = ledger.entries[0]?.feature;
  const count = `${ledger.entries.length} verdict${ledger.entries.length === 1 ? "" : "s"}`;
  process.stdout.write(`run ${runId}${feature ? ` (feature ${feature})` : ""}: ${count}\n`);
  if (ledger.entries.length > 0) process.stdout.write(formatLedgerTable(ledger.entries));
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
}): Promise<number> {
  const root = projectRoot(options.dir);
  const mandatory = mandatoryGates(loadConfig(root));
  const ledgers = readRunLedgers(root);
  for (const note of skippedNotes(ledgers)) process.stderr.write(`${note}\n`);
  let entries = byTime(ledgers);
  if (options.feature !== undefined) entries = entries.filter((entry) => entry.feature === options.feature);
  const judged = await judgeWorkingTree(root);
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
    process.stdout.write(`${JSON.stringify({ ok, tree: judged.tree, sha: judged.sha, mandatory, gates })}\n`);
    return ok ? EXIT.ok : EXIT.failed;
  }
  const tree = `tree ${shortHash(judged.tree)}`;
  if (mandatory.length === 0) {
    process.stdout.write(`gantry ledger check: no mandatory gates configured (gates.mandatory is empty)\n`);
    return 0;
  }
  if (ok) {
    process.stdout.write(
      `gantry ledger check: every mandatory gate passed on ${tree} (${mandatory.join(", ")})\n`,
    );
    return 0;
  }
  const unmet = states.filter((state) => !state.ok);
  const none = ledgers.length === 0 ? `; no runs under ${RUNS_DIR}/` : "";
  process.stdout.write(
    `gantry ledger check: ${unmet.length} of ${mandatory.length} mandatory gates not passed on ${tree}${none}\n`,
  );
  for (const state of unmet) process.stdout.write(`  ${describeGate(state)}\n`);
  return EXIT.failed;
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
      throw new InputError(root, "", "not inside a git repository; the ledger judges a git working tree");
    }
    throw error;
  }
}
