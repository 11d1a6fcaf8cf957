import { runGit } from "./exec.js";

/** The most trees whose lists are kept: past it the lists are dropped and made again when asked. */
const MAX_TREES = 8;

/**
 * Every file of a tree, relative to the project root (`git ls-tree -r`), listed once per tree: a tree id
 * names its content, so the list never changes. A listing that fails is not kept: the next ask runs it again.
 */
export class TreeFileLists {
  private readonly lists = new Map<string, Promise<string[]>>();

  constructor(private readonly projectRoot: string) {}

  files(tree: string): Promise<string[]> {
    let files = this.lists.get(tree);
    if (!files) {
      if (this.lists.size >= MAX_TREES) this.lists.clear();
      files = runGit(this.projectRoot, ["ls-tree", "-r", "-z", "--name-only", tree]).then((out) =>
        out.split("\0").filter(Boolean),
      );
      this.lists.set(tree, files);
      files.catch(() => this.lists.delete(tree));
    }
    return files;
  }
}
