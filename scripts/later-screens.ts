// `node --import tsx scripts/later-screens.ts [dir]`: the screens of a message
// sent later (issue 40 §2): `/sb scheduled` as an admin sees it, and the DMs
// to a writer whose message was not sent (the 24-hour window closed) or whose
// outcome is not known — drawn by the functions the app draws them with,
// written as Block Kit JSON and, when the blockkit-preview renderer and
// Chromium are there, as PNG. Default folder: docs/screens.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { scheduledReply } from "../src/commands/defs/scheduled.ts";
import type { LaterSend } from "../src/commands/later-message.ts";
import { laterNotSent, WINDOW_CLOSED } from "../src/commands/later-sends.ts";

const out = resolve(process.argv[2] ?? "docs/screens");
const renderer = process.env.BLOCKKIT_PREVIEW ?? "/work/shared/tools/blockkit-preview/render.mjs";
mkdirSync(out, { recursive: true });

const tz = "Europe/Madrid";
const later = (more: Partial<LaterSend>): LaterSend => ({
  id: 1,
  workspace: "T0ACME",
  kind: "message.later",
  number: 1,
  at: new Date("2026-11-30T08:00:00Z"),
  setBy: "U0ANA",
  via: "slack",
  payload: {
    body: { type: "text", text: "Hola Lucía, tu pedido A-7 sale hoy.", channelId: 1, contactId: 12 } as never,
    ref: "contact:12",
    toName: "Lucía Romero",
  },
  state: "waiting",
  createdAt: new Date("2026-11-29T07:12:00Z"),
  updatedAt: new Date("2026-11-29T07:12:00Z"),
  version: 0,
  ...more,
});

const screens: Record<string, object> = {
  "later-scheduled": scheduledReply(
    [
      later({}),
      later({
        number: 2,
        at: new Date("2026-11-30T16:30:00Z"),
        setBy: "U0LUIS",
        payload: {
          body: { type: "text", text: "¿Te va bien la entrega mañana por la tarde?", channelId: 1 } as never,
          ref: "+34600111222",
        },
      }),
      later({
        number: 4,
        at: new Date("2026-12-01T09:00:00Z"),
        payload: {
          body: {
            type: "template",
            template: { name: "order_update", language: "es" },
            channelId: 1,
          } as never,
          ref: "user:31",
          toName: "Diego Marín",
        },
      }),
    ],
    true,
    tz,
  ),
  "later-window-closed": laterNotSent(later({ state: "failed", detail: WINDOW_CLOSED }), tz),
  "later-unknown": laterNotSent(
    later({ state: "unknown", detail: "Switchboard stopped while sending it" }),
    tz,
  ),
};

for (const [name, message] of Object.entries(screens)) {
  const json = join(out, `${name}.json`);
  writeFileSync(json, `${JSON.stringify(message, null, 2)}\n`);
  if (existsSync(renderer))
    execFileSync(
      "node",
      [renderer, json, join(out, `${name}.png`), "--app-name", "Switchboard", "--strict"],
      {
        stdio: "inherit",
      },
    );
}
