import { rmSync } from "node:fs";
import { relative } from "node:path";
import { InputError } from "../config/input-error.js";
import { parseCpuYield, yieldCpu } from "../serve/cpu-yield.js";
import { startServer } from "../serve/server.js";
import { createToken } from "../serve/token.js";
import { projectRoot } from "./project.js";

export interface ServeCommandOptions {
  dir?: string;
  port?: string;
  host?: string;
  nice?: string;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/**
 * `gantry serve`: the live page and its routes until Ctrl-C (docs/serve.md).
 *
 * The server yields to the run it watches: each millisecond it takes while the run's commands keep every
 * core busy delays the run. By default it runs under SCHED_IDLE (docs/serve.md); `--nice <n>`
 * keeps the normal policy at that niceness instead.
 */
export async function serveCommand(options: ServeCommandOptions): Promise<number> {
  const root = projectRoot(options.dir);
  const port = options.port === undefined ? 0 : Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InputError(
      "--port",
      "",
      `expected a port 0-65535, got ${JSON.stringify(options.port)}`,
      "GANTRY_E_USAGE",
    );
  const cpu = parseCpuYield(options.nice);
  if (cpu === undefined)
    throw new InputError(
      "--nice",
      "",
      `expected idle or a niceness 0-19, got ${JSON.stringify(options.nice)}`,
      "GANTRY_E_USAGE",
    );
  const host = options.host ?? "127.0.0.1";
  if (!/^[A-Za-z0-9.:-]{1,253}$/.test(host))
    throw new InputError(
      "--host",
      "",
      `expected an address or host name, got ${JSON.stringify(host)}`,
      "GANTRY_E_USAGE",
    );
  if (host === "0.0.0.0" || host === "::")
    throw new InputError(
      "--host",
      "",
      `expected the address or name clients will use (every request's Host must be the server's own), not ${host}`,
      "GANTRY_E_USAGE",
    );
  if (!LOOPBACK.has(host))
    process.stderr.write(
      `gantry serve: warning: listening on ${host}, not only this machine; anyone who can reach it and holds the token can steer your runs\n`,
    );
  const notYielded = yieldCpu(cpu);
  if (notYielded) process.stderr.write(`${notYielded}\n`);
  const { token, file } = createToken(root);
  const { startDeviceRoutes } = await import("../serve/devices/routes.js");
  const devices = startDeviceRoutes(root, { warn: (line) => process.stderr.write(`${line}\n`) });
  const server = await startServer({
    root,
    host: host === "localhost" ? "127.0.0.1" : host,
    port,
    token,
    deviceRoutes: devices.routes,
  });
  process.stdout.write(`gantry serve: ${server.url}#token=${token}\n`);
  process.stderr.write(
    `gantry serve: the token is also in ${relative(process.cwd(), file) || file} (0600); Ctrl-C stops the server\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.close();
  rmSync(file, { force: true }); // the token dies with the server
  return 0;
}
