// Prints the file-level import cycles (strongly connected components, type-only
// imports included) inside each folder given, default src/slack:
//   npx tsx scripts/cycles.ts src/slack src/commands
import { resolve } from "node:path";
import { cycles, fileEdges } from "../test/architecture/rules.ts";

const dirs = process.argv.slice(2);
for (const dir of dirs.length ? dirs : ["src/slack"]) {
  const found = cycles(fileEdges(resolve(dir)));
  const files = found.reduce((n, c) => n + c.length, 0);
  console.log(`${dir}: ${found.length} cycle(s), ${files} file(s) in them`);
  for (const c of found) console.log(`  ${c.join(", ")}`);
}
