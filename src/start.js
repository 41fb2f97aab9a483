// `npm start`'s entry: Node's compile cache goes on before any TypeScript is
// loaded, so a warm start takes every module, src/host/main.ts included, stripped
// and compiled from the cache (Node's TypeScript stripper itself is then never
// loaded: ~0.15 s of a start's CPU, docs/memory.md).
import { enableCompileCache } from "node:module";

enableCompileCache?.();
await import("./host/main.ts");
