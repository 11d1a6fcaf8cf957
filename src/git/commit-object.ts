import type { GitObjects } from "./git-objects.js";

/** Who and when, as a commit's author and committer lines carry them. */
export interface CommitStamp {
  name: string;
  email: string;
  /** Seconds since the epoch, and the local offset from UTC in minutes (east positive). */
  seconds: number;
  offsetMinutes: number;
}

/** The stamp of now in the local time zone, as git takes it when no date is set in its environment. */
export function stampNow(name: string, email: string, now = new Date()): CommitStamp {
  return { name, email, seconds: Math.floor(now.getTime() / 1000), offsetMinutes: -now.getTimezoneOffset() };
}

/**
 * The commit object `git commit-tree <tree> [-p <parent>] -m <subject>` writes: tree, parent, author and
 * committer, a blank line, the message with its newline. The name and email come from `git var`, so they
 * are already as git would write them; a subject is one line (completion's commitSubject).
 */
export function commitBody(
  tree: string,
  parent: string,
  author: CommitStamp,
  committer: CommitStamp,
  subject: string,
): Buffer {
  const lines = [`tree ${tree}`];
  if (parent) lines.push(`parent ${parent}`);
  lines.push(`author ${ident(author)}`, `committer ${ident(committer)}`, "", subject);
  return Buffer.from(`${lines.join("\n")}\n`);
}

export function writeCommit(
  objects: GitObjects,
  tree: string,
  parent: string,
  author: CommitStamp,
  committer: CommitStamp,
  subject: string,
): string {
  return objects.write("commit", commitBody(tree, parent, author, committer, subject));
}

function ident(stamp: CommitStamp): string {
  const sign = stamp.offsetMinutes < 0 ? "-" : "+";
  const minutes = Math.abs(stamp.offsetMinutes);
  const zone = `${sign}${String(Math.floor(minutes / 60)).padStart(2, "0")}${String(minutes % 60).padStart(2, "0")}`;
  return `${stamp.name} <${stamp.email}> ${stamp.seconds} ${zone}`;
}
