import { type ChildProcess, spawn } from "node:child_process";

/**
 * A watchdog for the process groups gantry's commands lead: one small shell per gantry process, in a
 * session of its own, told each group as it starts (`+pgid`) and ends (`-pgid`) over a pipe. When gantry
 * is gone (SIGKILL, a crash, the OOM killer) the pipe reaches its end and the shell kills every group still
 * listed, so no agent session or test outlives a gantry that could not stop it. Sandboxed commands also die
 * with gantry through bwrap's --die-with-parent; this covers the unsandboxed ones. execa's `cleanup` cannot:
 * it runs in gantry's own process, which a SIGKILL ends at once.
 */
const SCRIPT = `groups=" "
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups\${line#+} " ;;
    -*) id=\${line#-}; case "$groups" in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
for g in $groups; do kill -KILL -"$g" 2>/dev/null; done`;

let reaper: ChildProcess | undefined;
let broken = false;

/**
 * Starts the reaper if it is not running. Called before a command is spawned, so that only the statements
 * between the spawn's return and the `+pgid` line are a window a SIGKILL could fall into (a process left
 * by one is stopped by the next run's leftover check, src/process/leftovers.ts).
 */
export function startReaper(): ChildProcess | undefined {
  if (reaper || broken) return reaper;
  try {
    reaper = spawn("/bin/sh", ["-c", SCRIPT, "gantry-reaper"], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
  } catch {
    broken = true;
    return undefined;
  }
  reaper.once("error", () => {
    broken = true;
    reaper = undefined;
  });
  reaper.stdin?.on("error", () => {
    // The reaper is gone: commands still stop at their end and at the next run's leftover check.
  });
  // Neither the watchdog nor its pipe keeps gantry alive; at gantry's exit the pipe closes and it ends.
  reaper.unref();
  (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return reaper;
}

/** Lists the group `pgid` with the reaper until the returned function is called (after the group is killed). */
export function reapWithGantry(pgid: number | undefined): () => void {
  if (pgid === undefined) return () => undefined;
  const watchdog = startReaper();
  watchdog?.stdin?.write(`+${pgid}\n`);
  return () => {
    if (reaper === watchdog) watchdog?.stdin?.write(`-${pgid}\n`);
  };
}
