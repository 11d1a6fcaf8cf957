// The layers of gantry, top to bottom (docs/architecture.md). A module may import its own layer or a
// lower one, never a higher one; no cycles anywhere, type-only imports included.
const LAYERS = [
  ["cli"],
  ["pipeline"],
  ["stages"],
  ["subscribers", "reporters", "interaction", "serve"],
  ["verification", "review", "agents", "plugins", "ledger"],
  ["git", "prd", "plan", "config", "runs"],
  ["model", "util", "bus", "process"],
];

const dirs = (names) => `^src/(${names.join("|")})/`;

const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-from-${layer.join("-")}`,
  comment: `${layer.join(", ")} may not import from a higher layer (${LAYERS.slice(0, i + 1)
    .flat()
    .join(", ")})`,
  severity: "error",
  from: { path: dirs(layer) },
  to: { path: `${dirs(LAYERS.slice(0, i + 1).flat())}|^src/[^/]+\\.ts$` },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "an import cycle, type-only imports included",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: "stages-never-call-subscribers",
      comment: "stages emit events; subscribers react. A stage importing a subscriber bypasses the bus.",
      severity: "error",
      from: { path: "^src/stages/" },
      to: { path: "^src/(subscribers|reporters|interaction|serve)/" },
    },
    {
      name: "model-imports-nothing",
      comment: "src/model is the bottom: it imports nothing from gantry outside itself",
      severity: "error",
      from: { path: "^src/model/" },
      to: { path: "^src/", pathNot: "^src/model/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    parser: "swc",
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
