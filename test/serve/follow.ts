import { spawn } from "node:child_process";
import { CLI, cliEnvironment } from "../e2e/harness.js";

/** Starts `gantry logs --follow` and resolves with what it printed once it exits by itself. */
export function follow(
  root: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; at: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "logs", "--follow", ...args], {
      cwd: root,
      env: cliEnvironment(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, at: Date.now() });
    });
  });
}
