// "Saved reply…" on an inbox card, and the message shortcut in its thread
// (issue 29 §1): search the workspace's saved replies as you type (those of
// this inbox and of every inbox), see the one chosen filled for this customer
// (src/commands/customer-record.ts: the contact with the chat user's phone,
// else the chat user), edit it, send it once as a thread reply is sent
// (features/inbox/saved-send.ts). A placeholder the record has no value for
// (and no fallback) stays as written, is named, and must be filled before
// sending. Outside the 24-hour window the modal offers the approved templates
// instead, their placeholders filled the same way. A form only Slack opens
// (no core kind): the card's button (listeners/actions/inbox.ts) and the shortcut.
import { randomBytes } from "node:crypto";
import type { MessageShortcut } from "@slack/bolt";
import type { KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import { placeholdersOf } from "../../api/schemas/templates.ts";
import type { Template } from "../../api/types.ts";
import { esc } from "../../blocks/blocks.ts";
import {
  customerRecord,
  fillForCustomer,
  stillMissing,
  templateValues,
} from "../../commands/customer-record.ts";
import type { Actor } from "../../commands/types.ts";
import { type ReplyRecord, SAVED_REPLY_MAX } from "../../domain/saved-reply.ts";
import type { Thread } from "../../store/inbox.ts";
import type { Reach } from "../context.ts";
import { windowOpen } from "../features/inbox/render.ts";
import { sendSaved } from "../features/inbox/saved-send.ts";
import { SHORTCUTS, type SlackForm } from "./form.ts";
import {
  context,
  cut,
  input,
  modal,
  option,
  sectionText,
  selectedOf,
  staticSelect,
  textInput,
  textOf,
} from "./kit.ts";
import { placeholderLabel, placeholderLine, templateInWords, withHint } from "./parts.ts";

export const SAVED_CALLBACK = "sb_saved_reply_form";
/** The saved replies' search (an external select). */
export const SAVED_PICK = "sb_saved_pick";
/** The approved templates (outside the window). */
export const SAVED_TEMPLATE = "sb_saved_template";
const TEXT_MAX = SAVED_REPLY_MAX;

export interface SavedMeta {
  /** The inbox's channel and the chat user. */
  ch: string;
  u: number;
  /** This modal's own id: the reply row claimed once, whatever is clicked twice. */
  n: string;
  mode: "text" | "template";
  /** The reply (or template) chosen, and the placeholders its customer has no value for. */
  r?: string;
  miss?: string[];
  /** Bumped on each choice: a new block id, so Slack shows the new text. */
  v: number;
}

type Plan = {
  body: { type: "text"; text: string } | { type: "template"; template: TemplateBody };
  label: string;
};
type TemplateBody = { name: string; language: string; parameters?: Record<string, string> };

const textBlock = (v: number) => `text_${v}`;
const paramBlock = (name: string, v: number) => `p_${v}_${name}`;

/** A short modal saying why it cannot be used here. */
const notHere = (text: string): ModalView =>
  modal({ callbackId: "sb_saved_none", title: "Saved reply", close: "Close", blocks: [sectionText(text)] });

interface Loaded {
  thread: Thread;
  name: string;
  record: ReplyRecord;
  source: string;
  open: boolean;
}

/** The conversation, the customer's record and whether the window is open; or why not. */
async function load(
  ctx: Reach,
  actor: Actor,
  channel: string,
  chatUserId: number,
): Promise<Loaded | { refused: string }> {
  if (!ctx.stores) return { refused: "The inbox is not set up in this Switchboard." };
  const store = ctx.stores.inbox;
  const thread = await store.thread(channel, chatUserId);
  if (!thread?.threadTs || !(await store.inbox(channel)))
    return {
      refused:
        "This is not a conversation of an inbox that is on: saved replies are sent from an inbox's threads.",
    };
  const writer = await ctx.core
    .perform(actor, { access: "write", command: "inbox" }, async () => true)
    .catch(() => false);
  if (!writer)
    return {
      refused: "Only writers may answer customers (SWITCHBOARD_WRITERS): nothing can be sent from here.",
    };
  const { record, source } = await ctx.core.perform(actor, { access: "read", command: "inbox" }, (api) =>
    customerRecord(api, chatUserId),
  );
  return {
    thread,
    name: thread.card?.name ?? `chat user #${chatUserId}`,
    record,
    source,
    open: !thread.windowClosedShown && windowOpen(thread.customerWroteAt, new Date()),
  };
}

async function approvedTemplates(
  ctx: Reach,
  actor: Actor,
  channelId: number | undefined,
): Promise<Template[]> {
  const page = await ctx.core.perform(actor, { access: "read", command: "inbox" }, (api) =>
    api.listTemplates({ status: "approved" }),
  );
  return page.items.filter(
    (t) => typeof t.name === "string" && (!channelId || !t.integrationId || t.integrationId === channelId),
  );
}

const quote = (text: string) => `>${esc(cut(text, 2500)).replace(/\n/g, "\n>")}`;

/** The modal for this conversation (`meta.r`: the reply or template chosen). */
export async function savedReplyView(
  ctx: Reach,
  actor: Actor,
  meta: Pick<SavedMeta, "ch" | "u"> & Partial<SavedMeta>,
): Promise<ModalView> {
  const loaded = await load(ctx, actor, meta.ch, meta.u);
  if ("refused" in loaded) return notHere(loaded.refused);
  const { name, record, source, open, thread } = loaded;
  const m: SavedMeta = {
    ch: meta.ch,
    u: meta.u,
    n: meta.n ?? randomBytes(9).toString("base64url"),
    mode: open ? "text" : "template",
    v: (meta.v ?? 0) + 1,
    ...(meta.r && meta.mode === (open ? "text" : "template") ? { r: meta.r } : {}),
  };
  const blocks: KnownBlock[] = [];
  if (open) {
    const saved = ctx.stores?.savedReplies;
    const chosen = m.r ? await saved?.get(m.r) : undefined;
    blocks.push(sectionText(`To *${esc(name)}*, filled from ${esc(source)}.`));
    blocks.push(
      input(
        "pick",
        "Saved reply",
        {
          type: "external_select",
          action_id: SAVED_PICK,
          min_query_length: 0,
          placeholder: { type: "plain_text", text: "Search saved replies" },
          ...(chosen ? { initial_option: option(cut(chosen.name, 75), chosen.name) } : {}),
        },
        { dispatch: true },
      ),
    );
    if (chosen) {
      const filled = fillForCustomer(chosen.text, record);
      m.miss = filled.missing;
      // A text at the limit may outgrow it once filled (a long name): the field holds its start, said below.
      const over = filled.text.length > TEXT_MAX;
      blocks.push(
        input(
          textBlock(m.v),
          "Message",
          textInput("text", {
            initial: over ? filled.text.slice(0, TEXT_MAX) : filled.text,
            multiline: true,
            max: TEXT_MAX,
          }),
          {
            hint: "As the customer will read it: edit it as you like before sending.",
          },
        ),
      );
      if (over)
        blocks.push(
          context(
            `:warning: Filled for ${esc(name)}, it is ${filled.text.length.toLocaleString("en-US")} characters, over the ${TEXT_MAX.toLocaleString("en-US")} a message here may have: its end was cut, read it before sending.`,
          ),
        );
      if (filled.missing.length)
        blocks.push(
          context(
            `:warning: ${esc(name)}'s record has no value for ${filled.missing.map((k) => `\`{${esc(k)}}\``).join(", ")}: write it in before sending.`,
          ),
        );
    } else
      blocks.push(
        context(
          "Type to search by name or text. `/sb replies` lists them; `/sb reply add <name> <text…>` saves one.",
        ),
      );
  } else {
    const templates = await approvedTemplates(ctx, actor, thread.card?.channelId);
    const chosen = m.r ? templates.find((t) => t.name === m.r) : undefined;
    blocks.push(
      sectionText(
        `:lock: *${esc(name)}* last wrote more than 24 hours ago: only an approved template can reach them now.`,
      ),
    );
    if (!templates.length)
      blocks.push(
        context("There is no approved template for this customer's channel: `/sb templates` lists them."),
      );
    else
      blocks.push(
        input(
          "template",
          "Template",
          staticSelect(
            SAVED_TEMPLATE,
            templates.map((t) =>
              option(
                cut(String(t.name), 75),
                String(t.name),
                cut(templateInWords(String(t.bodyText ?? "")), 75),
              ),
            ),
            { initial: chosen ? String(chosen.name) : undefined, placeholder: "Choose an approved template" },
          ),
          { dispatch: true },
        ),
      );
    if (chosen) {
      const names = placeholdersOf(String(chosen.bodyText ?? ""));
      const { values, missing } = templateValues(names, record);
      m.miss = missing;
      blocks.push(sectionText(quote(templateInWords(String(chosen.bodyText ?? "")))));
      for (const p of names)
        blocks.push(
          input(
            paramBlock(p, m.v),
            placeholderLabel(p),
            textInput(`value_${p}`, { initial: values[p], max: 1000 }),
            withHint(
              placeholderLine(String(chosen.bodyText ?? ""), p),
              missing.includes(p) ? `${name}'s record has no value for it: write it in.` : undefined,
            ),
          ),
        );
      if (names.length) blocks.push(context(`Filled from ${esc(source)}.`));
    }
  }
  // Slack wants a submit button on a view with inputs; sending before a choice is refused at the field.
  const hasInput = blocks.some((b) => b.type === "input");
  return modal({
    callbackId: SAVED_CALLBACK,
    title: open ? "Saved reply" : "Send a template",
    ...(hasInput ? { submit: open ? "Send" : "Send template" } : {}),
    close: "Cancel",
    metadata: m,
    blocks,
  });
}

/** The message shortcut: the thread the message is in, if it is an inbox conversation. */
async function shortcutView(ctx: Reach, actor: Actor, sc: MessageShortcut): Promise<ModalView> {
  // The request's workspace says first whether this person may answer customers at all.
  if (
    !(await ctx.core
      .perform(actor, { access: "write", command: "inbox" }, async () => true)
      .catch(() => false))
  )
    return notHere("Only writers may answer customers (SWITCHBOARD_WRITERS): nothing can be sent from here.");
  const channel = sc.channel.id;
  const ts = (sc.message as { thread_ts?: string }).thread_ts ?? sc.message.ts;
  const thread = ctx.stores ? await ctx.stores.inbox.threadByTs(channel, ts) : undefined;
  if (!thread)
    return notHere("Use *Saved reply* on a message in an inbox conversation's thread (or its card).");
  return savedReplyView(ctx, actor, { ch: channel, u: thread.chatUserId });
}

export const savedReplyForm: SlackForm<never, SavedMeta, Plan> = {
  name: "saved reply form",
  callbackId: SAVED_CALLBACK,
  refresh: {
    actions: [SAVED_PICK, SAVED_TEMPLATE],
    view: async ({ ctx, actor, meta, state, action }) => {
      if (!meta.ch || !meta.u) return undefined;
      const picked = selectedOf(state, action.action_id === SAVED_PICK ? "pick" : "template");
      return savedReplyView(ctx, actor, {
        ...meta,
        ch: meta.ch,
        u: meta.u,
        ...(picked ? { r: picked } : {}),
      });
    },
  },
  options: {
    [SAVED_PICK]: async (_api, s): Promise<PlainTextOption[]> => {
      const ch = typeof s.meta?.ch === "string" ? s.meta.ch : "";
      if (!s.ctx?.stores || !ch) return [];
      const found = await s.ctx.stores.savedReplies.search(ch, s.query);
      return found.map((r) => option(cut(r.name, 75), r.name, cut(r.text.replace(/\s+/g, " "), 75)));
    },
  },
  submit: {
    check: ({ meta, state }) => {
      const v = meta.v ?? 0;
      if (meta.mode === "template") {
        const name = selectedOf(state, "template");
        if (!name || !meta.r) return { errors: { template: "Choose an approved template." } };
        const errors: Record<string, string> = {};
        const parameters: Record<string, string> = {};
        for (const key of Object.keys(state ?? {})) {
          const m = /^p_(\d+)_(.+)$/.exec(key);
          if (!m || Number(m[1]) !== v) continue;
          const value = textOf(state, key)?.trim();
          if (!value) errors[key] = `Fill in ${placeholderLabel(m[2]!)}: the template needs a value for it.`;
          else parameters[m[2] as string] = value;
        }
        if (Object.keys(errors).length) return { errors };
        return {
          plan: {
            body: {
              type: "template",
              template: { name, language: "", ...(Object.keys(parameters).length ? { parameters } : {}) },
            },
            label: `Template *${esc(name)}*`,
          },
        };
      }
      if (!meta.r) return { errors: { pick: "Choose a saved reply." } };
      const block = textBlock(v);
      const text = textOf(state, block)?.trim();
      if (!text) return { errors: { [block]: "Write the message: it is empty." } };
      const left = stillMissing(text, meta.miss ?? []);
      if (left.length)
        return {
          errors: {
            [block]: `Fill in ${left.map((k) => `{${k}}`).join(", ")}: this customer's record has no value for ${left.length > 1 ? "them" : "it"}.`,
          },
        };
      return { plan: { body: { type: "text", text }, label: `Saved reply *${esc(meta.r)}*` } };
    },
    run: async (plan, { ctx, client, meta, actor }) => ({
      after: async () => {
        if (!meta.ch || !meta.u || !meta.n) return;
        let body = plan.body;
        if (body.type === "template") {
          // The template's language, as the API has it (the form keeps only its name).
          const name = body.template.name;
          const t = (await approvedTemplates(ctx, actor, undefined)).find((x) => x.name === name);
          body = { type: "template", template: { ...body.template, language: String(t?.language ?? "en") } };
        }
        await sendSaved(ctx, client, actor, {
          channel: meta.ch,
          chatUserId: meta.u,
          key: `saved:${meta.n}`,
          body,
          label: plan.label,
        });
      },
    }),
  },
  shortcuts: [
    {
      callbackId: SHORTCUTS.savedReply,
      type: "message",
      line: "",
      title: "Saved reply",
      view: shortcutView,
    },
  ],
};
