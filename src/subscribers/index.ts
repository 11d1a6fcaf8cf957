import type { EventBus } from "../bus/event-bus.js";
import type { Config } from "../config/schema.js";
import type { RunControl } from "../model/run-control.js";
import type { Story } from "../prd/story.js";
import type { NamedReporter } from "../reporters/types.js";
import type { Logger } from "../util/logger.js";
import { wireCostLog } from "./cost-log.js";
import { wireEventsLog } from "./events-log.js";
import { wireHooks } from "./hooks.js";
import { wireInteraction } from "./interaction.js";
import { wireLedger } from "./ledger.js";
import { wireReporters } from "./reporters.js";
import { wireServeControl } from "./serve-control.js";

export interface SubscriberDeps {
  runDir: string;
  feature: string;
  root: string;
  config: Config;
  control: RunControl;
  logger: Logger;
  /** The run's stories, read by interaction triggers (acceptance criteria). */
  stories: { get(id: string): Story | undefined };
  warn: (line: string) => void;
  reporters: NamedReporter[];
}

/**
 * Every subscriber of a run, wired once at start-up. Stages never call these; they only emit.
 * Order matters only for files: ledger.jsonl gets each verdict before the events log does.
 */
export function wireSubscribers(bus: EventBus, deps: SubscriberDeps): () => void {
  const disposers = [
    wireLedger(bus, { runDir: deps.runDir }),
    wireEventsLog(bus, { runDir: deps.runDir }),
    wireHooks(bus, deps),
    wireInteraction(bus, deps),
    wireCostLog(bus, { runDir: deps.runDir }),
    wireServeControl(bus, { runDir: deps.runDir, control: deps.control, warn: deps.warn }),
  ];
  disposers.push(wireReporters(bus, deps.reporters, { logger: deps.logger, warn: deps.warn }));
  return () => {
    for (const dispose of disposers.reverse()) dispose();
  };
}
