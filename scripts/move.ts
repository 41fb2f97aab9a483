// Moves files and rewrites every relative import that names them (src, test, bench, scripts).
// Usage: npx tsx scripts/move.ts old1=new1 old2=new2 ...   (paths from the repository's root)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const moves = new Map<string, string>();
for (const arg of process.argv.slice(2)) {
  const [from, to] = arg.split("=");
  if (!from || !to) throw new Error(`not old=new: ${arg}`);
  moves.set(resolve(ROOT, from), resolve(ROOT, to));
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|js|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

const files = ["src", "test", "bench", "scripts"].flatMap((d) =>
  existsSync(join(ROOT, d)) ? walk(join(ROOT, d)) : [],
);
files.push(join(ROOT, "vitest.config.ts"));
const SPEC = /((?:from|import)\s*\(?\s*|new URL\(\s*|vi\.mock\(\s*)(["'])(\.{1,2}\/[^"']+)\2/g;

const rel = (fromDir: string, target: string) => {
  let r = relative(fromDir, target);
  if (!r.startsWith(".")) r = `./${r}`;
  return r;
};

const out = new Map<string, string>();
for (const file of files) {
  if (!existsSync(file)) continue;
  const text = readFileSync(file, "utf8");
  const oldDir = dirname(file);
  const newFile = moves.get(file) ?? file;
  const newDir = dirname(newFile);
  let changed = false;
  const next = text.replace(SPEC, (all, pre: string, q: string, spec: string) => {
    const target = resolve(oldDir, spec);
    const moved = moves.get(target) ?? target;
    if (moved === target && newDir === oldDir) return all;
    const r = rel(newDir, moved);
    if (r === spec) return all;
    changed = true;
    return `${pre}${q}${r}${q}`;
  });
  if (changed || newFile !== file) out.set(file, next);
}
for (const [from, to] of moves) {
  mkdirSync(dirname(to), { recursive: true });
  execFileSync("git", ["mv", from, to], { cwd: ROOT });
}
for (const [file, text] of out) writeFileSync(moves.get(file) ?? file, text);
console.log(`moved ${moves.size}, rewrote ${out.size}`);
