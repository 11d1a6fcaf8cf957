import { loadConfig } from "../config/loader.js";
import { loadPrd } from "../prd/load.js";
import { featurePrdPath, listFeatures, projectRoot } from "./project.js";

/** `gantry validate`: the config and every feature's PRD; the first problem is reported, exit 2. */
export async function validateCommand(options: {
  feature?: string;
  dir?: string;
  json?: boolean;
}): Promise<number> {
  const root = projectRoot(options.dir);
  loadConfig(root);
  const features = options.feature ? [options.feature] : listFeatures(root);
  let stories = 0;
  for (const feature of features) {
    const { path, display } = featurePrdPath(root, feature);
    stories += loadPrd(path, display).userStories.length;
  }
  const summary = { valid: true, features, stories };
  if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else process.stdout.write(`ok: config and ${features.length} feature(s), ${stories} stories\n`);
  return 0;
}
