// The layers of gantry, top to bottom (docs/architecture.md). A module may import its own layer or a
// lower one, never a higher one; no cycles anywhere, type-only imports included. Within a layer the folders
// are listed in the order they may import each other: a folder imports only those after it, so no two
// folders of a layer can import each other, even through others.
const LAYERS = [
  ["cli"],
  ["pipeline"],
  ["stages"],
  ["serve", "subscribers", "reporters", "interaction"],
  ["review", "verification", "plugins", "agents", "ledger"],
  ["git", "plan", "prd", "config", "runs"],
  ["bus", "process", "util", "model"],
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

const sideways = LAYERS.flatMap((layer) =>
  layer.slice(1).map((folder, i) => ({
    name: `no-folder-cycle-${folder}`,
    comment: `${folder} may not import ${layer.slice(0, i + 1).join(", ")}: folders of a layer import only those listed after them`,
    severity: "error",
    from: { path: dirs([folder]) },
    to: { path: dirs(layer.slice(0, i + 1)) },
  })),
);

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
    ...sideways,
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
