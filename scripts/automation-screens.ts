// `node --import tsx scripts/automation-screens.ts [dir]`: `/sb automations`
// (issue 40 §3) with a hook delivering, one whose deliveries fail (Retry), one
// retrying and one that never sent, drawn by the function the command draws
// it with, written as Block Kit JSON and, when the blockkit-preview renderer
// and Chromium are there, as PNG. Default folder: docs/screens.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { automationsBlocks } from "../src/commands/defs/automations.ts";
import type { HookRow } from "../src/store/automations.ts";
import { withNames } from "./screen-names.ts";

const out = resolve(process.argv[2] ?? "docs/screens");
const renderer = process.env.BLOCKKIT_PREVIEW ?? "/work/shared/tools/blockkit-preview/render.mjs";
mkdirSync(out, { recursive: true });

const hook = (more: Partial<HookRow>): HookRow => ({
  workspace: "T0ACME",
  number: 1,
  event: "conversation.resolved",
  kind: "endpoint",
  urlSealed: "sb1.x",
  urlMasked: "https://crm.acme.example/…",
  secretSealed: "sb1.y",
  inbox: null,
  createdBy: "U0ANA",
  createdAt: new Date("2026-11-20T09:00:00Z"),
  lastAt: new Date("2026-11-29T10:12:00Z"),
  lastState: "delivered",
  lastDetail: "HTTP 200",
  failures: 0,
  ...more,
});

const hooks = [
  hook({}),
  hook({
    number: 2,
    event: "message.received",
    kind: "workflow",
    urlMasked: "https://hooks.slack.com/…",
    secretSealed: null,
    inbox: "C0SUPPORT",
    lastAt: new Date("2026-11-29T10:40:00Z"),
    lastState: "failed",
    lastDetail: "HTTP 400",
    failures: 3,
  }),
  hook({
    number: 3,
    event: "campaign.started",
    urlMasked: "https://hooks.zapier.example/…",
    lastAt: new Date("2026-11-29T10:41:00Z"),
    lastState: "pending",
    lastDetail: "HTTP 503",
  }),
  hook({ number: 4, event: "reply_target.breached", lastAt: null, lastState: null, lastDetail: null }),
];

const screens = [
  {
    name: "automations-list",
    title: "/sb automations: delivering, failing (Retry), retrying, never sent",
    payload: { text: "Automations", blocks: automationsBlocks(hooks) },
  },
  {
    name: "automations-empty",
    title: "/sb automations: none yet",
    payload: { text: "Automations", blocks: automationsBlocks([]) },
  },
];

for (const s of screens) {
  const json = join(out, `${s.name}.json`);
  writeFileSync(json, `${JSON.stringify(s.payload, null, 2)}\n`);
  const shown = join(tmpdir(), `switchboard-screen-${s.name}.json`);
  writeFileSync(shown, withNames(JSON.stringify(s.payload)));
  if (existsSync(renderer))
    execFileSync(
      process.execPath,
      [renderer, shown, join(out, `${s.name}.png`), "--app-name", "Switchboard"],
      {
        stdio: "inherit",
      },
    );
  console.log(`${s.name}: ${s.title}`);
}
