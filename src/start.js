// `npm start`'s entry: the Node.js version checked first (an older one says what
// it needs in one line, no stack trace), then Node's compile cache goes on before
// any TypeScript is loaded, so a warm start takes every module, src/host/main.ts
// included, stripped and compiled from the cache (Node's TypeScript stripper itself
// is then never loaded: ~0.15 s of a start's CPU, docs/memory.md). Only imports
// every Node.js can link are static here: a missing named export fails before any line runs.
import * as nodeModule from "node:module";
import { nodeVersionProblem } from "./node-version.js";

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
nodeModule.enableCompileCache?.();
await import("./host/main.ts");
