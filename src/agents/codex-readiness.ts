/**
 * Whether Codex sessions can work here, asked offline: `codex login status` (or an API key, or a custom
 * model provider in its config.toml), whose sandbox the session uses, and whether Codex's model catalogue
 * (`codex debug models`) knows the models the run will ask for.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ReadinessContext, ReadinessFinding } from "./adapter.js";
import { askCli } from "./ask-cli.js";
import { isObject } from "./output.js";

export async function codexReadiness(context: ReadinessContext): Promise<ReadinessFinding[]> {
  const found: ReadinessFinding[] = [];
  const [login, catalogue] = await Promise.all([
    askCli("codex", ["login", "status"], context.cwd, context.env),
    askCli("codex", ["debug", "models"], context.cwd, context.env),
  ]);
  const provider = customProvider(context.env);
  if (login.code === 0) found.push({ kind: "ok", text: "logged in" });
  else if (provider) found.push({ kind: "ok", text: `model_provider "${provider}" in config.toml` });
  else if (context.env.OPENAI_API_KEY || context.env.CODEX_API_KEY)
    found.push({ kind: "ok", text: "API key in the environment" });
  else if (login.code !== null)
    found.push({
      kind: "broken",
      text: "`codex login status` says not logged in: run `codex login`, or set OPENAI_API_KEY, or name a model_provider in $CODEX_HOME/config.toml",
    });
  else found.push({ kind: "warning", text: "login not confirmed (`codex login status` did not answer)" });
  found.push({
    kind: "ok",
    text: context.sandboxed
      ? "inside gantry's sandbox: Codex's own sandbox off (--sandbox danger-full-access)"
      : "Codex's own sandbox on (--sandbox workspace-write)",
  });
  const known = slugs(catalogue.stdout);
  const unknown = context.models.filter((m) => known && !known.includes(m));
  if (unknown.length > 0 && !provider) {
    found.push({
      kind: "warning",
      text: `model ${unknown.join(", ")} not in this Codex's catalogue (\`codex debug models\`); set agent.models.codex`,
    });
  }
  return found;
}

/** `model_provider = "x"` at the top of $CODEX_HOME/config.toml (before any table). */
function customProvider(env: NodeJS.ProcessEnv): string | undefined {
  const file = join(env.CODEX_HOME || join(env.HOME || homedir(), ".codex"), "config.toml");
  if (!existsSync(file)) return undefined;
  const top = readFileSync(file, "utf8").split(/^\s*\[/m)[0] ?? "";
  const name = /^\s*model_provider\s*=\s*"([^"]+)"/m.exec(top)?.[1];
  return name && name !== "openai" ? name : undefined;
}

function slugs(stdout: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(stdout.slice(stdout.indexOf("{")));
    if (!isObject(value) || !Array.isArray(value.models)) return undefined;
    return value.models.map((m) => (isObject(m) ? String(m.slug) : "")).filter(Boolean);
  } catch {
    return undefined;
  }
}
