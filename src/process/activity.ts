/**
 * What gantry has started that could have touched the working tree: the judge's cache is keyed on it. A
 * tree judged when nothing has run since needs no look at the disk; after commands that are not meant to
 * change files (tests, lint, typecheck) a stat check is enough; after any other (an agent session, a
 * fixer, a hook) the tree is built again. Counted for the whole process: any repository's command counts.
 */
export interface Activity {
  /** Commands started so far. */
  started: number;
  /** Of those, the ones that may change files. */
  writers: number;
  /** Commands still running: while one is, no judged tree is taken as settled. */
  running: number;
}

const counts: Activity = { started: 0, writers: 0, running: 0 };

/** A command is starting; call the returned function once it has ended. */
export function noteCommand(mayWrite: boolean): () => void {
  counts.started += 1;
  if (mayWrite) counts.writers += 1;
  counts.running += 1;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    counts.running -= 1;
    // An end counts as activity too: what the command did up to its last moment is seen by the next check.
    counts.started += 1;
  };
}

export function activity(): Activity {
  return { ...counts };
}
