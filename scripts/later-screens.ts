// `node --import tsx scripts/later-screens.ts [dir]`: the screens of a message
// sent later (issue 40 §2): `/sb scheduled` as an admin sees it, its Edit…
// form (and the form with a time refused at its field), and the DMs to a
// writer whose message was not sent (the 24-hour window closed) or whose
// outcome is not known — drawn by the functions the app draws them with,
// written as Block Kit JSON and, when the blockkit-preview renderer and
// Chromium are there, as PNG. Default folder: docs/screens. The renderer
// cannot draw Slack's own field errors: the refused form is drawn as
// Switchboard gives it back after a slow answer (restore.ts), the error under
// its field, with the words the form's check gives.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { scheduledReply } from "../src/commands/defs/scheduled.ts";
import type { LaterSend } from "../src/commands/later-message.ts";
import { laterNotSent, WINDOW_CLOSED } from "../src/commands/later-sends.ts";
import { localText } from "../src/domain/start-time.ts";
import { restoredView } from "../src/slack/forms/restore.ts";
import { scheduledEditForm, scheduledEditModal } from "../src/slack/forms/scheduled-edit.ts";
import { withNames } from "./screen-names.ts";

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

const first = later({});
const editModal = scheduledEditModal(
  {
    number: first.number,
    version: first.version,
    whom: "Lucía Romero",
    text: String(first.payload.body.text),
    said: "",
    at: localText(first.at, tz),
    tz,
    setBy: first.setBy,
  },
  { ch: "C0GENERAL" },
);
// The form submitted with a time already past: the form's own check says why, under the field.
const typed = {
  text: { text: { type: "plain_text_input", value: String(first.payload.body.text) } },
  at: { at: { type: "plain_text_input", value: "2026-11-28 09:00" } },
};
const submitted = { ...editModal, state: { values: typed } } as never;
const checked = await scheduledEditForm.submit.check({
  state: typed,
  view: submitted,
  meta: { tz },
} as never);
const refusedEdit = restoredView(submitted, "errors" in checked ? checked.errors : {});

const screens: Record<string, object> = {
  "later-edit": editModal,
  "later-edit-refused": refusedEdit,
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
  const shown = join(tmpdir(), `switchboard-screen-${name}.json`);
  writeFileSync(shown, withNames(JSON.stringify(message)));
  if (existsSync(renderer))
    execFileSync(
      "node",
      [renderer, shown, join(out, `${name}.png`), "--app-name", "Switchboard", "--strict"],
      {
        stdio: "inherit",
      },
    );
}
