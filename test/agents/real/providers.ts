/**
 * How each real CLI is pointed at the scripted model server, in a home of its own: the variables and the
 * config files each one honours (docs/agents.md, "Proxies and gateways").
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Provider } from "../model-server/server.js";

export type RealCli = "claude" | "codex" | "gemini" | "opencode";

export const PROVIDER: Record<RealCli, Provider> = {
  claude: "anthropic",
  codex: "openai",
  gemini: "gemini",
  opencode: "anthropic",
};

const write = (path: string, text: string) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
};

/** Writes the CLI's config under `home` and returns the variables it runs with. */
export function pointAt(cli: RealCli, url: string, home: string): Record<string, string> {
  switch (cli) {
    case "claude":
      return { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-scripted" };
    case "codex":
      // Codex honours a provider in config.toml, not OPENAI_BASE_URL.
      write(
        join(home, ".codex", "config.toml"),
        `model_provider = "scripted"\n\n[model_providers.scripted]\nname = "scripted"\nbase_url = "${url}/v1"\nwire_api = "responses"\nenv_key = "SCRIPTED_API_KEY"\n`,
      );
      return { CODEX_HOME: join(home, ".codex"), SCRIPTED_API_KEY: "sk-scripted" };
    case "gemini":
      // GOOGLE_GEMINI_BASE_URL alone selects the "gateway" auth type, which headless mode refuses.
      write(
        join(home, ".gemini", "settings.json"),
        JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
      );
      return { GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: "scripted-key" };
    case "opencode":
      write(
        join(home, ".config", "opencode", "opencode.json"),
        JSON.stringify({
          $schema: "https://opencode.ai/config.json",
          provider: { anthropic: { options: { baseURL: `${url}/v1`, apiKey: "sk-ant-scripted" } } },
          autoupdate: false,
          share: "disabled",
        }),
      );
      return { OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" };
  }
}

/** Variables from the machine that would point a CLI elsewhere or log it in: never passed on. */
export const FOREIGN = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "CODEX_HOME",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GEMINI_BASE_URL",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "OPENCODE_CONFIG",
  "OPENCODE_CONFIG_CONTENT",
];
