import type { ChildProcess } from "node:child_process";

/** A busy helper keeps gantry's event loop alive; an idle one does not keep gantry from exiting. */
export function holdHelper(child: ChildProcess, on: boolean): void {
  for (const handle of [child, ...child.stdio]) {
    const h = handle as { ref?: () => void; unref?: () => void } | null;
    if (on) h?.ref?.();
    else h?.unref?.();
  }
}

/**
 * Asks a helper to end (EOF on its input) and keeps gantry alive until it has, so it is reaped here. Only
 * the process is waited for: the helper's watcher holds fd 3 until gantry itself is gone.
 */
export function endHelper(child: ChildProcess): void {
  (child as { ref?: () => void }).ref?.();
  child.stdin?.end();
}

/** A lost helper: killed, and its pipes closed so that nothing of it keeps gantry's event loop alive. */
export function killHelper(child: ChildProcess): void {
  child.kill("SIGKILL");
  for (const stream of child.stdio) (stream as { destroy?: () => void } | null)?.destroy?.();
}
