import { join } from "node:path";
import {
  type AgentSession,
  gantry,
  git,
  lastRun,
  makeProject,
  prdStories,
  REPO,
  story,
} from "../e2e/harness.js";
import type { Rng } from "./harness.js";
import { chaosConfig, moduleWithTest, QUICK_CHECK } from "./project.js";

/**
 * Seeded random features for `--parallel`: stories that edit one shared file (each its own function, or a
 * function another story edits too), that add the same new file (an add/add conflict), and that depend on
 * each other (a test of the dependency's module). Every story can be merged: a story that conflicts runs
 * again on the new tip (merge-conflict's fallback, retry) and merges then.
 */

const AGENT = join(REPO, "test", "e2e", "fixtures", "scripted-agent.sh");

export interface MergeTrial {
  seed: number;
  workers: number;
  ids: string[];
  dependencies: Record<string, string>;
  /** Shared-file slot → the stories that set it and the values they set. */
  slots: Map<string, { id: string; value: number }[]>;
  /** New file → the stories that add it. */
  added: Map<string, string[]>;
  plan: Record<string, AgentSession[]>;
}

/** The shared file: one function a slot, far enough apart that edits of two slots merge cleanly. */
const sharedFile = (slots: string[]) =>
  slots.map((s) => `export function ${s}() {\n  // ${s}\n  return 0;\n}\n`).join("\n");

export function mergeTrial(rng: Rng, maxStories: number): MergeTrial {
  const count = rng.int(3, Math.max(3, maxStories));
  const ids = Array.from({ length: count }, (_, i) => `S${i + 1}`);
  const trial: MergeTrial = {
    seed: rng.seed,
    workers: rng.int(2, 4),
    ids,
    dependencies: {},
    slots: new Map(),
    added: new Map(),
    plan: {},
  };
  const paired = new Set<string>();
  ids.forEach((id, i) => {
    const writes: Record<string, string> = moduleWithTest(`m${i + 1}`, 10 + i);
    const edits: string[] = [];
    const setSlot = (slot: string, value: number) => {
      trial.slots.set(slot, [...(trial.slots.get(slot) ?? []), { id, value }]);
      edits.push(slotEdit(slot, value));
    };
    if (rng.chance(0.7)) setSlot(`own${i + 1}`, 100 + i);
    // A partner among the earlier stories not paired yet: both edit one slot, or both add one new file.
    const partner = ids.slice(0, i).find((other) => !paired.has(other) && rng.chance(0.4));
    if (partner) {
      paired.add(partner);
      paired.add(id);
      const k = paired.size / 2;
      if (rng.chance(0.5)) {
        setSlot(`c${k}`, 200 + i);
        // The partner's session was planned already: it sets the slot too, to a value of its own.
        const first = trial.plan[partner]?.[0];
        if (first) first.sh = `${first.sh ? `${first.sh}\n` : ""}${slotEdit(`c${k}`, 300 + i)}`;
        trial.slots.set(`c${k}`, [{ id: partner, value: 300 + i }, ...(trial.slots.get(`c${k}`) ?? [])]);
      } else {
        const file = `src/new${k}.js`;
        writes[file] = `export const from${id} = ${i};\n`;
        const first = trial.plan[partner]?.[0];
        if (first) first.write = { ...first.write, [file]: `export const from${partner} = 0;\n` };
        trial.added.set(file, [partner, id]);
      }
    }
    const dependency = i > 0 && rng.chance(0.3) ? rng.pick(ids.slice(0, i)) : undefined;
    if (dependency) {
      trial.dependencies[id] = dependency;
      const n = ids.indexOf(dependency) + 1;
      writes[`test/dep${i + 1}.test.js`] = moduleWithTest(`m${n}`, 10 + n - 1)[
        `test/m${n}.test.js`
      ] as string;
    }
    trial.plan[id] = [{ write: writes, ...(edits.length ? { sh: edits.join("\n") } : {}) }];
  });
  return trial;
}

const slotEdit = (slot: string, value: number) =>
  `sed -i '/\\/\\/ ${slot}$/{n;s/return [0-9]*;/return ${value};/}' src/shared.js`;

type Event = Record<string, unknown> & { type: string; storyId?: string; story?: { id: string } };

/** Runs the trial with the built CLI and returns every broken rule (empty: the trial holds). */
export async function runMergeTrial(trial: MergeTrial): Promise<{ root: string; broken: string[] }> {
  const config = chaosConfig({ agent: { command: { run: `sh ${JSON.stringify(AGENT)}` } } });
  Object.assign(config, {
    interaction: { channel: "auto", triggers: { "merge-conflict": { enabled: true } } },
  });
  const slots = [...trial.slots.keys()];
  const root = makeProject({
    stories: trial.ids.map((id) =>
      story(id, trial.dependencies[id] ? { dependencies: [trial.dependencies[id]] } : {}),
    ),
    plan: trial.plan,
    config,
    files: { "tools/check.sh": QUICK_CHECK, "src/shared.js": sharedFile(slots.length ? slots : ["none"]) },
  });
  const run = await gantry(root, ["run", "--feature", "f", "--parallel", String(trial.workers)], {
    env: { SCRIPTED_AGENT_HOME: root },
    timeoutMs: 400_000,
  });
  const broken: string[] = [];
  if (run.code !== 0) broken.push(`exit ${run.code}: ${run.stderr.slice(-1500)}`);
  const stories = prdStories(root);
  for (const id of trial.ids)
    if (stories[id]?.status !== "passed") broken.push(`${id} is ${stories[id]?.status}, not merged`);
  const events = lastRun(root).events as Event[];
  // The trigger's request is written as the merge event is handled: count them per story, not in order.
  for (const id of trial.ids) {
    const refused = events.filter(
      (e) => e.type === "story:merge" && e.storyId === id && e.outcome !== "merged",
    );
    const asked = events.filter(
      (e) => e.type === "interaction:request" && e.trigger === "merge-conflict" && e.storyId === id,
    );
    if (asked.length !== refused.length)
      broken.push(`${id}: ${refused.length} merges refused, ${asked.length} asked through merge-conflict`);
  }
  const check = await gantry(root, ["ledger", "check"]);
  if (check.code !== 0)
    broken.push(`ledger check exit ${check.code}: ${check.stdout.slice(-800)}${check.stderr}`);
  if (git(root, "status", "--porcelain") !== "")
    broken.push(`the main tree is not clean: ${git(root, "status", "--porcelain")}`);
  if (git(root, "worktree", "list").trim().split("\n").length !== 1) broken.push("story worktrees left");
  broken.push(...contentRules(root, trial));
  return { root, broken };
}

/** The feature branch holds every story's work: its module, its own slot, one of a contested slot's values. */
function contentRules(root: string, trial: MergeTrial): string[] {
  const broken: string[] = [];
  const tree = git(root, "ls-tree", "-r", "--name-only", "HEAD").split("\n");
  const shared = git(root, "show", "HEAD:src/shared.js");
  for (const [slot, setters] of trial.slots) {
    const value = new RegExp(`// ${slot}\\n  return (\\d+);`).exec(shared)?.[1];
    if (!setters.some((s) => String(s.value) === value))
      broken.push(
        `${slot} holds ${value}, set by none of ${setters.map((s) => `${s.id}=${s.value}`).join(", ")}`,
      );
  }
  trial.ids.forEach((id, i) => {
    const path = `src/m${i + 1}.js`;
    if (!tree.includes(path) || !git(root, "show", `HEAD:${path}`).includes(`return ${10 + i};`))
      broken.push(`${id}'s module is not on the branch`);
  });
  for (const file of trial.added.keys())
    if (!tree.includes(file)) broken.push(`${file} is not on the branch`);
  return broken;
}
