// `npm run screens [dir]`: builds the main screens from the real code paths
// (test/screens/build.ts) and writes each as Block Kit JSON and, when the
// blockkit-preview renderer and Chromium are there, as a PNG. Default folder:
// docs/screens. Rendered by hand (CI has no browser); a test keeps the Block
// Kit valid.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildScreens } from "../test/screens/build.ts";

const out = resolve(process.argv[2] ?? "docs/screens");
const renderer = process.env.BLOCKKIT_PREVIEW ?? "/work/shared/tools/blockkit-preview/render.mjs";
mkdirSync(out, { recursive: true });
const screens = await buildScreens();
for (const s of screens) {
  const json = join(out, `${s.name}.json`);
  writeFileSync(json, `${JSON.stringify(s.payload, null, 2)}\n`);
  if (existsSync(renderer)) {
    execFileSync(
      process.execPath,
      [renderer, json, join(out, `${s.name}.png`), "--app-name", "Switchboard"],
      {
        stdio: "inherit",
      },
    );
  }
  console.log(`${s.name}: ${s.title}`);
}
