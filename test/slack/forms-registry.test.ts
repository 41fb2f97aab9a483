// The registry of forms (src/slack/forms/index.ts) answers every element of a
// form that makes Slack call back: each external select has its options
// loader and each choice that dispatches (a dispatch_action input, live typing,
// a button) rebuilds the form, all under the form's own callback id.
import { describe, expect, it } from "vitest";
import type { FormRequest } from "../../src/commands/form-kinds.ts";
import type { Actor } from "../../src/commands/types.ts";
import { FORMS, formView } from "../../src/slack/forms/index.ts";
import { mappingModal } from "../../src/slack/forms/mapping.ts";
import { DEFAULT_SETTINGS } from "../helpers/settings.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

const actor: Actor = { userId: "U0ALICE", channelId: "C0GENERAL", via: "slack" };
const record = { id: 3, phone: "+14155550100", name: "Ana" };
const fields = [{ key: "tier", label: "Tier", type: "text" }];

const origin = { kind: "default" } as const;
/** Settings with a chosen group: the groups field shows, over usergroups.list. */
const SETTINGS = {
  ...DEFAULT_SETTINGS,
  writers: { value: ["U0ALICE", "S0SUPPORT"], origin },
  auditChannel: { value: "C0AUDIT", origin },
  messagingChannel: { value: 1, origin },
};

const requests: FormRequest[] = [
  {
    kind: "campaign",
    data: { channels: [1, 2], defaultChannelId: 1, tags: [], groups: [{ id: 1, name: "VIP" }] },
  },
  { kind: "send", data: { channels: [1, 2], defaultChannelId: 1 } },
  { kind: "send", data: { channels: [1], prefill: { type: "template" } } },
  { kind: "template", data: { channels: [] } },
  { kind: "contact", data: { id: 3, record, fields } },
  { kind: "chat-user", data: { id: 3, record, fields } },
  { kind: "import", data: { groups: [] } },
  { kind: "settings", data: { settings: SETTINGS, channels: [{ id: 1, name: "Main line" }] } },
];

/** The elements of a view that make Slack call the app, by what Slack sends. */
function callbacks(view: Json): { suggest: string[]; act: string[] } {
  const suggest: string[] = [];
  const act: string[] = [];
  for (const b of view.blocks as Json[]) {
    const elements: Json[] = b.type === "actions" ? b.elements : b.element ? [b.element] : [];
    for (const el of elements) {
      if (/external_select$/.test(el.type)) suggest.push(el.action_id);
      if (b.type === "actions" || b.dispatch_action || el.dispatch_action_config) act.push(el.action_id);
    }
  }
  return { suggest, act };
}

describe("the registry of forms", () => {
  const views = [
    ...requests.map((r) => formView(r, actor)),
    mappingModal(
      ["Phone"],
      { phone: [0], first_name: null, last_name: null, email: null, name: null, fields: {} },
      [],
      { id: "x" },
    ),
  ];

  it.each(views.map((v) => [v.callback_id, v] as const))(
    "answers what the %s form makes Slack send",
    (callbackId, view) => {
      const form = FORMS.find((f) => f.callbackId === callbackId);
      expect(form, `a form registered under ${callbackId}`).toBeDefined();
      const { suggest, act } = callbacks(view);
      const loaders = [...Object.keys(form?.options ?? {}), ...Object.keys(form?.slackOptions ?? {})];
      for (const id of suggest) expect(loaders, `options for ${id}`).toContain(id);
      for (const id of act) expect(form?.refresh?.actions ?? [], `a refresh for ${id}`).toContain(id);
    },
  );

  it("holds each callback id once", () => {
    const ids = FORMS.map((f) => f.callbackId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
