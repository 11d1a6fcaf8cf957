import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { EventBus } from "../bus/event-bus.js";
import {
  type Config,
  DEFAULT_TRIGGER_TIMEOUT_SECONDS,
  type InteractionAction,
  TRIGGER_NAMES,
  TRIGGERS,
  type TriggerName,
} from "../config/schema.js";
import { type Channel, createBroker, type InteractionRequest } from "../interaction/broker.js";
import { createAutoChannel } from "../interaction/channels/auto.js";
import { createCliChannel } from "../interaction/channels/cli.js";
import { createFileChannel } from "../interaction/channels/file.js";
import { createServeChannel } from "../interaction/channels/serve.js";
import { createWebhookChannel } from "../interaction/channels/webhook.js";
import { type Question, triggerEnabled, wireTriggers } from "../interaction/triggers.js";
import type { RunControl } from "../model/run-control.js";
import type { Story } from "../prd/story.js";
import type { Logger } from "../util/logger.js";

export const INTERACTION_DIR = "interaction";

export interface InteractionDeps {
  config: Config;
  control: RunControl;
  runDir: string;
  feature: string;
  stories: { get(id: string): Story | undefined };
  logger: Logger;
  warn: (line: string) => void;
  /** Where the webhook secret is read from; process.env by default. */
  env?: NodeJS.ProcessEnv;
  /** The cli channel's terminal; process.stdin / process.stderr by default. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * Interaction triggers (docs/interaction.md): each enabled trigger asks through the configured channel
 * when its event happens, announces `interaction:request` / `interaction:response`, and records the
 * answer through RunControl. Nothing is wired when no trigger is enabled.
 */
export function wireInteraction(bus: EventBus, deps: InteractionDeps): () => void {
  const { config } = deps;
  if (!TRIGGER_NAMES.some((trigger) => triggerEnabled(config, trigger))) return () => {};
  const channel = createChannel(deps);
  const broker = createBroker({ channel, signal: deps.control.signal, warn: deps.warn });

  const ask = async (trigger: TriggerName, question: Question): Promise<InteractionAction | undefined> => {
    const settings = config.interaction.triggers[trigger];
    const timeoutMs = (settings?.timeoutSeconds ?? DEFAULT_TRIGGER_TIMEOUT_SECONDS) * 1000;
    const options = question.options;
    const preferred: InteractionAction[] = [
      settings?.fallback ?? TRIGGERS[trigger].fallback,
      TRIGGERS[trigger].fallback,
    ];
    const fallback =
      preferred.find((action) => options.includes(action)) ?? (options[0] as InteractionAction);
    const now = Date.now();
    const request: InteractionRequest = {
      id: randomUUID(),
      trigger,
      ...(question.storyId ? { storyId: question.storyId } : {}),
      summary: question.summary,
      options,
      timeoutMs,
      fallback,
      runId: bus.runId,
      feature: deps.feature,
      at: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutMs).toISOString(),
    };
    const { runId: _r, feature: _f, at: _a, expiresAt: _e, ...payload } = request;
    bus.emit("interaction:request", payload);
    const answer = await broker.ask(request);
    bus.emit("interaction:response", { id: request.id, trigger, ...answer });
    deps.logger.info(
      { trigger, id: request.id, storyId: question.storyId, ...answer },
      `interaction ${trigger}: ${answer.action} (${answer.respondedBy})`,
    );
    return answer.respondedBy === "interrupted" ? undefined : answer.action;
  };

  const unwire = wireTriggers(bus, { config, control: deps.control, stories: deps.stories, ask });
  return () => {
    unwire();
    channel.close?.();
  };
}

/** The configured channel. `auto` (the default) answers every question with its fallback at once. */
function createChannel(deps: InteractionDeps): Channel {
  const { interaction } = deps.config;
  switch (interaction.channel) {
    case "cli":
      return createCliChannel({ input: deps.stdin ?? process.stdin, output: deps.stderr ?? process.stderr });
    case "file":
      return createFileChannel({ dir: join(deps.runDir, INTERACTION_DIR), pollMs: interaction.file.pollMs });
    case "serve": {
      const stdin = deps.stdin ?? process.stdin;
      return createServeChannel({
        dir: join(deps.runDir, INTERACTION_DIR),
        pollMs: interaction.file.pollMs,
        ...(stdin.isTTY
          ? { terminal: createCliChannel({ input: stdin, output: deps.stderr ?? process.stderr }) }
          : {}),
      });
    }
    case "webhook": {
      // The schema requires `webhook` with this channel.
      const webhook = interaction.webhook as NonNullable<typeof interaction.webhook>;
      const secret = (deps.env ?? process.env)[webhook.secretEnv];
      return createWebhookChannel({
        url: webhook.url,
        secret: secret ? secret : undefined,
        secretEnv: webhook.secretEnv,
        ...(webhook.callbackPort === undefined ? {} : { callbackPort: webhook.callbackPort }),
        postTimeoutMs: webhook.timeoutSeconds * 1000,
      });
    }
    default:
      return createAutoChannel();
  }
}
