import { InputError } from "../config/input-error.js";
import type { PluginOrigin } from "./types.js";

export const CONFIG_FILE = ".gantry/config.json";

/**
 * A plugin's config entry is the place a load failure is reported:
 * `.gantry/config.json: plugins[1]: ./tools/b.mjs <message>`, exit code 2, with the original error as `cause`.
 */
export function pluginInputError(
  origin: Pick<PluginOrigin, "module" | "index">,
  message: string,
  cause?: unknown,
): InputError {
  const error = new InputError(
    CONFIG_FILE,
    `plugins[${origin.index}]`,
    `${origin.module} ${message}`,
    "GANTRY_E_PLUGIN",
  );
  if (cause !== undefined) error.cause = cause;
  return error;
}

/** Something a loaded plugin did while the run was going: names the plugin and the hook, keeps the cause. */
export class PluginError extends Error {
  override name = "PluginError";
  readonly code = "PLUGIN_ERROR";
  constructor(
    readonly plugin: string,
    readonly hook: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
