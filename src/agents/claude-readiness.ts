/**
 * Whether Claude Code sessions can work here, asked offline: root outside a sandbox (it refuses to skip
 * permissions there) and `claude auth status` (logged in, or an API key in the environment).
 */
import type { ReadinessContext, ReadinessFinding } from "./adapter.js";
import { askCli } from "./ask-cli.js";
import { isObject } from "./output.js";

export async function claudeReadiness(context: ReadinessContext): Promise<ReadinessFinding[]> {
  const found: ReadinessFinding[] = [];
  if (context.root && !context.sandboxed && context.env.IS_SANDBOX === "1") {
    found.push({ kind: "ok", text: "root outside gantry's sandbox, IS_SANDBOX=1 set in the environment" });
  } else if (context.root && !context.sandboxed) {
    found.push({
      kind: "broken",
      text: 'runs as root without gantry\'s sandbox, where Claude Code refuses to skip permissions: set agent.sandbox to "auto" or "bwrap" (bubblewrap installed), or run gantry as a user other than root',
    });
  } else if (context.root) {
    found.push({ kind: "ok", text: "root inside gantry's sandbox: sessions get IS_SANDBOX=1" });
  }
  const status = await askCli("claude", ["auth", "status"], context.cwd, context.env);
  const answer = parseJson(status.stdout);
  if (answer && answer.loggedIn === true) {
    found.push({
      kind: "ok",
      text: `logged in (${String(answer.apiKeySource ?? answer.authMethod ?? "yes")})`,
    });
  } else if (answer && answer.loggedIn === false && !otherProvider(context.env)) {
    found.push({
      kind: "broken",
      text: "`claude auth status` says not logged in: run `claude auth login`, or set ANTHROPIC_API_KEY (ANTHROPIC_AUTH_TOKEN for a gateway)",
    });
  } else {
    found.push({
      kind: "warning",
      text: "login not confirmed (`claude auth status` gave no answer it could read)",
    });
  }
  return found;
}

/** Bedrock, Vertex or a gateway token: `auth status` does not speak for them. */
function otherProvider(env: NodeJS.ProcessEnv): boolean {
  return ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "ANTHROPIC_AUTH_TOKEN"].some((k) => !!env[k]);
}

function parseJson(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf("{");
  if (start < 0) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start, text.lastIndexOf("}") + 1));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
