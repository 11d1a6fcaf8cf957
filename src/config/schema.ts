import { z } from "zod";
import { GATE_NAMES } from "../model/ledger.js";
import { HooksSchema } from "./hooks-schema.js";
import { InteractionSchema } from "./interaction-schema.js";
import { PlanSchema } from "./plan-schema.js";
import { ReadinessSchema } from "./readiness-schema.js";
import { ReviewSchema } from "./review-schema.js";
import { AppCheckSchema } from "./story-check-schema.js";

export { HOOK_EVENTS, type HookEvent } from "./hooks-schema.js";
export {
  DEFAULT_TRIGGER_TIMEOUT_SECONDS,
  INTERACTION_ACTIONS,
  type InteractionAction,
  TRIGGER_NAMES,
  TRIGGERS,
  type TriggerName,
} from "./interaction-schema.js";

/** The single source of every shape in .gantry/config.json; schemas/config.schema.json is generated from it. */

const seconds = (fallback: number) => z.number().positive().max(86_400).default(fallback);

const reporterEntry = z.union([
  z.string().min(1),
  z.tuple([z.string().min(1), z.record(z.string(), z.unknown())]),
]);

export const TierModels = z.record(z.string(), z.string());

const writableDirs = z
  .array(z.string().min(1))
  .optional()
  .describe(
    "files and folders in the home (~/...) the agent CLI writes under the sandbox, besides its defaults; the rest of the home is read-only to sessions",
  );
const agentOwnState = z.strictObject({ writableDirs }).optional();

export const ConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    agent: z
      .strictObject({
        default: z.string().min(1).default("command"),
        timeoutSeconds: seconds(1800),
        sandbox: z
          .enum(["auto", "bwrap", "off"])
          .default("auto")
          .describe(
            "auto: bubblewrap when it works here, else the tamper checks alone (one warning a run); bwrap: required; off",
          ),
        command: z
          .strictObject({
            run: z.string().min(1).describe("run through /bin/sh -c with the prompt on stdin"),
            writableDirs,
          })
          .optional(),
        claude: agentOwnState,
        codex: agentOwnState,
        gemini: agentOwnState,
        opencode: agentOwnState,
        aider: agentOwnState,
        models: z.record(z.string(), TierModels).default({}),
        prices: z
          .record(
            z.string().min(1),
            z.strictObject({
              inputPerMTok: z.number().nonnegative(),
              outputPerMTok: z.number().nonnegative(),
            }),
          )
          .default({})
          .describe(
            "USD per million tokens by model, to estimate a session's cost when the CLI reports none",
          ),
        rateLimit: z
          .strictObject({
            retries: z.number().int().min(0).max(10).default(3),
            baseDelayMs: z.number().int().min(0).max(600_000).default(30_000),
          })
          .prefault({})
          .describe("a rate-limited session is retried after baseDelayMs, then twice that, and so on"),
        maxPromptChars: z.number().int().min(2_000).max(10_000_000).default(60_000),
      })
      .prefault({}),
    quality: z
      .strictObject({
        commands: z
          .strictObject({
            install: z
              .string()
              .min(1)
              .optional()
              .describe(
                "installs the dependencies (npm ci, pip install -e .): run by gantry, with the network, when a story changes a manifest or lockfile",
              ),
            test: z.string().min(1).optional(),
            testScoped: z.string().min(1).optional(),
            lint: z.string().min(1).optional(),
            typecheck: z.string().min(1).optional(),
            lintFix: z.string().min(1).optional(),
            formatFix: z.string().min(1).optional(),
            acceptance: z.string().min(1).optional(),
            build: AppCheckSchema.optional().describe("story-check: the app builds"),
            smoke: AppCheckSchema.optional().describe("story-check: a smoke test of the app"),
            demo: AppCheckSchema.optional().describe("story-check: the app starts and shows it works"),
          })
          .prefault({}),
        timeoutSeconds: seconds(600),
        /** Environment variables never passed to test, lint or agent commands. */
        stripEnv: z.array(z.string().min(1)).default([]),
      })
      .prefault({}),
    execution: z
      .strictObject({
        maxStageRetries: z.number().int().min(0).max(100).default(5),
        maxIterations: z.number().int().min(1).max(10_000).default(50),
        costLimitUsd: z.number().nonnegative().default(30),
        /** Stories run side by side in their own worktrees (`--parallel N`); 1 = one at a time, 0 = the cores. */
        parallel: z.number().int().min(0).max(64).default(1),
        /** The most workers `parallel: 0` (one a core) may start. */
        parallelMax: z.number().int().min(1).max(64).default(8),
        worktreeSetup: z
          .string()
          .min(1)
          .optional()
          .describe(
            "--parallel: a command run in each new story worktree, in the sandbox, before the story's first session (pip install -e ., npm ci --prefer-offline, code generation); what it makes must be ignored by git",
          ),
        rectify: z
          .strictObject({
            enabled: z.boolean().default(true),
            maxAttempts: z.number().int().min(0).max(20).default(2),
          })
          .prefault({}),
        autofix: z
          .strictObject({
            enabled: z.boolean().default(true),
            maxAttempts: z.number().int().min(0).max(20).default(2),
          })
          .prefault({}),
        regression: z
          .strictObject({ mode: z.enum(["inline", "deferred", "off"]).default("deferred") })
          .prefault({}),
      })
      .prefault({}),
    verify: z
      .strictObject({
        /** Run each added/changed test without the story's production changes; a test that still passes is a fail. */
        testStrength: z.boolean().default(false),
        /** More mapped test files than this and the full suite runs instead. */
        maxScopedFiles: z.number().int().positive().default(50),
        suppressions: z
          .enum(["reasoned", "none"])
          .default("reasoned")
          .describe(
            "lint / type-check suppressions a story adds: reasoned = a specific one in production code (it names its rule or error code, or @ts-expect-error says why) is shown, not failed; blanket ones, those in test files and one that silences exactly what the check reported fail test-integrity. none = every added suppression fails",
          ),
      })
      .prefault({}),
    routing: z
      .strictObject({
        tiers: z.array(z.string().min(1)).min(1).default(["fast", "balanced", "powerful"]),
        complexityTier: z
          .strictObject({
            simple: z.string().default("fast"),
            medium: z.string().default("balanced"),
            complex: z.string().default("powerful"),
            expert: z.string().default("powerful"),
          })
          .prefault({}),
        attemptsPerTier: z
          .number()
          .int()
          .min(1)
          .max(10)
          .default(1)
          .describe("passes a story gets at each tier before it goes one tier up"),
        tierAttempts: z
          .record(z.string(), z.number().int().min(1).max(10))
          .default({})
          .describe("passes per tier by name, overriding attemptsPerTier for that tier"),
        escalationStart: z
          .enum(["current-tree", "base-commit"])
          .default("current-tree")
          .describe(
            "what a new tier's pass starts from: the tree the last pass left, or the story's base commit (the work so far is set aside in git stash)",
          ),
      })
      .superRefine((routing, issues) => {
        for (const tier of Object.keys(routing.tierAttempts)) {
          if (!routing.tiers.includes(tier)) {
            issues.addIssue({
              code: "custom",
              message: `"${tier}" is not one of routing.tiers (${routing.tiers.join(", ")})`,
              path: ["tierAttempts", tier],
            });
          }
        }
      })
      .prefault({}),
    gates: z
      .strictObject({
        mandatory: z
          // plan-critique judges a plan (`gantry plan`), not a story: completion cannot require it.
          .array(z.enum(GATE_NAMES).exclude(["plan-critique"]))
          .optional()
          .describe(
            "default: verify, review, test-integrity, regression when inline, review-decision when review.panel is set, story-check when a build, smoke or demo command is set",
          ),
      })
      .prefault({}),
    hooks: HooksSchema,
    reporters: z.array(reporterEntry).default(["default"]),
    plugins: z
      .array(z.union([z.string(), z.tuple([z.string(), z.record(z.string(), z.unknown())])]))
      .default([]),
    interaction: InteractionSchema,
    readiness: ReadinessSchema,
    review: ReviewSchema,
    plan: PlanSchema,
  })
  .describe("gantry project configuration (.gantry/config.json)");

export type Config = z.output<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;

/**
 * The gates that decide completion: configured, else verify, review, test-integrity, regression when inline,
 * review-decision when a review panel is set, story-check when a build, smoke or demo command is set.
 */
export function mandatoryGates(config: Config): string[] {
  if (config.gates.mandatory) return config.gates.mandatory;
  const gates = ["verify", "review", "test-integrity"];
  if (config.execution.regression.mode === "inline") gates.push("regression");
  if (config.review.panel.length > 0) gates.push("review-decision");
  const { build, smoke, demo } = config.quality.commands;
  if (build || smoke || demo) gates.push("story-check");
  return gates;
}
