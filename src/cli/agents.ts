import { probeAgent } from "../agents/probe.js";
import { AgentRegistry } from "../agents/registry.js";
import { loadConfig } from "../config/loader.js";
import { findOnPath as findExecutable } from "../process/find-executable.js";
import { sandboxSupport } from "../process/sandbox.js";
import { sandboxStatusLine } from "../process/sandbox-status.js";
import { projectRoot } from "./project.js";

interface AgentInfo {
  name: string;
  default: boolean;
  /** The executable, for the named CLIs; the command adapter runs `agent.command.run` instead. */
  bin: string | null;
  /** Where the executable is on PATH, or null when it is not there. */
  path: string | null;
  version: string | null;
  /** The command adapter's `agent.command.run`, when set. */
  command?: string | null;
  models: Record<string, string>;
  ready: boolean;
  /** For agent.default: what its offline checks found (login, root, trust, sandbox, models). */
  checks?: string[];
}

/**
 * `gantry agents`: every adapter, whether its CLI is on PATH and its `--version`, and the model it runs for
 * each tier. Exit 0, or 1 when the configured `agent.default` cannot run here.
 */
export async function agentsCommand(options: {
  json?: boolean;
  dir?: string;
  /** Where the report goes; standard output by default. */
  write?: (text: string) => void;
}): Promise<number> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const root = projectRoot(options.dir);
  const config = loadConfig(root);
  const registry = new AgentRegistry();
  const infos = await Promise.all(
    registry.names().map(async (name): Promise<AgentInfo> => {
      const adapter = registry.create(name, config);
      const models = Object.fromEntries(config.routing.tiers.map((tier) => [tier, adapter.modelFor(tier)]));
      const isDefault = name === config.agent.default;
      if (!adapter.bin) {
        const command = config.agent.command?.run ?? null;
        return {
          name,
          default: isDefault,
          bin: null,
          path: null,
          version: null,
          command,
          models,
          ready: !!command,
        };
      }
      const path = findOnPath(adapter.bin);
      const sandboxed = config.agent.sandbox !== "off" && (await sandboxSupport()).works;
      const readiness = isDefault ? { sandboxed } : undefined;
      const probe = path
        ? await probeAgent(adapter, config, root, process.env, undefined, undefined, readiness)
        : undefined;
      const version = probe?.kind === "ready" ? probe.detail : null;
      const checks =
        probe?.kind === "ready"
          ? (probe.checks ?? []).map((c) => `${c.kind === "warning" ? "warning: " : ""}${c.text}`)
          : probe?.kind === "broken" && isDefault
            ? [`broken: ${probe.problem}`]
            : [];
      const ready = path !== null && probe?.kind !== "broken";
      return {
        name,
        default: isDefault,
        bin: adapter.bin,
        path,
        version,
        models,
        ready: isDefault ? ready : path !== null,
        ...(checks.length > 0 ? { checks } : {}),
      };
    }),
  );
  const exitCode = infos.find((i) => i.default)?.ready === false ? 1 : 0;
  const sandbox = await sandboxStatusLine(config.agent.sandbox);
  if (options.json) {
    write(`${JSON.stringify({ default: config.agent.default, agents: infos, sandbox })}\n`);
    return exitCode;
  }
  for (const info of infos) {
    const mark = info.default ? "*" : " ";
    const where = info.bin
      ? info.path
        ? `${info.path}${info.version ? `  (${info.version})` : ""}`
        : `${info.bin}: not on PATH`
      : info.command
        ? `runs: ${info.command}`
        : "agent.command.run is not set";
    const models = Object.entries(info.models)
      .map(([tier, model]) => `${tier}=${model}`)
      .join(" ");
    write(`${mark} ${info.name.padEnd(9)} ${where}\n            models: ${models}\n`);
    for (const check of info.checks ?? []) write(`            ${check}\n`);
  }
  write(`\n* agent.default (${config.agent.default})\n${sandbox}\n`);
  return exitCode;
}

/** The first executable file named `bin` in a PATH directory, like the shell would run; null when none. */
export function findOnPath(bin: string, pathVariable = process.env.PATH ?? ""): string | null {
  return findExecutable(bin, pathVariable) ?? null;
}
