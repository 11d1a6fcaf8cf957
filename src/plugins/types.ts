import type { AdapterFactory } from "../agents/registry.js";
import type { Complexity, Story } from "../prd/story.js";

/**
 * The plugin API. A plugin is a module (a file in the project or an installed package) named in
 * `plugins` in .gantry/config.json; its default export is a {@link PluginFactory}.
 */

/** What a plugin may provide: a closed list, anything else is rejected when the plugin loads. */
export const PLUGIN_KINDS = ["reviewer", "router", "agent"] as const;
export type PluginKind = (typeof PLUGIN_KINDS)[number];

export interface PluginContext {
  /** The project root (where .gantry/ is). */
  root: string;
}

/** A plugin module's default export; called once per run with the options from the config entry. */
export type PluginFactory = (
  options: Record<string, unknown>,
  context: PluginContext,
) => GantryPlugin | Promise<GantryPlugin>;

/** What a plugin factory returns. `provides` declares what it gives; the two must match. */
export interface GantryPlugin {
  name: string;
  provides: PluginKind[];
  reviewers?: Reviewer[];
  routers?: Router[];
  agents?: PluginAgent[];
}

export interface ReviewInput {
  root: string;
  storyId: string;
  /** Files the story changed since it started, relative to the root, when known. */
  changedFiles?: string[];
  /** Aborted when the review times out (`quality.timeoutSeconds`) or the run is interrupted. */
  signal: AbortSignal;
}

export interface ReviewOutcome {
  success: boolean;
  findings: string[];
  output?: string;
}

/** Runs in the review stage after typecheck and lint; its result is the check `plugin:<name>`. */
export interface Reviewer {
  name: string;
  review(input: ReviewInput): Promise<ReviewOutcome>;
}

export interface RouteAnswer {
  complexity?: Complexity;
  tier?: string;
  testStrategy?: string;
  reason?: string;
}

/** Consulted before gantry's own routing; `undefined` means no opinion, the next router is asked. */
export interface Router {
  name: string;
  route(story: Story): Promise<Partial<RouteAnswer> | undefined>;
}

/** An agent adapter, selectable by name in `agent.default`. */
export interface PluginAgent {
  name: string;
  create: AdapterFactory;
}

/** Where a loaded plugin came from: its name, the config entry's module string and index. */
export interface PluginOrigin {
  name: string;
  module: string;
  index: number;
}

export type PluginReviewer = Reviewer & { plugin: string };
export type PluginRouter = Router & { plugin: string };
export type PluginAgentEntry = PluginAgent & { plugin: string };

/** Everything the configured plugins provide, names unique within each kind. */
export interface PluginSet {
  plugins: PluginOrigin[];
  reviewers: PluginReviewer[];
  routers: PluginRouter[];
  agents: PluginAgentEntry[];
}
