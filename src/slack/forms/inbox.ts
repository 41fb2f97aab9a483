// The inbox form (`/sb inbox on` alone, issue 29 §2): a channel's inbox as a
// form, its filter, chat types and thread replies, and its reply targets
// (first reply, next reply, @here on warnings in the channel). Submitted, it
// runs the same command line as typed (`inbox on <#channel> … first=15m`) as
// the person who submitted it: the checks, the join, the audit and the answer
// are the command's.
import type { KnownBlock, ModalView } from "@slack/types";
import type { InboxFormData } from "../../commands/form-kinds.ts";
import { durationWords } from "../../domain/business-hours.ts";
import { errorsFor } from "./field-errors.ts";
import { askedIn, type FormOutcome, type SlackForm, type Submission } from "./form.ts";
import {
  checkedOf,
  context,
  initialStateOf,
  input,
  modal,
  option,
  sectionText,
  selectedOf,
  staticSelect,
  textInput,
  textOf,
} from "./kit.ts";
import { postOutcome } from "./submission.ts";

export const INBOX_CALLBACK = "sb_inbox";

export interface InboxMeta {
  ch?: string;
  /** The line the form stood for when it opened on an inbox that exists: saved untouched, nothing is written. */
  was?: string;
  /** Whether the away message went out there when the form opened (issue 40 §1; `inbox away`, not `inbox on`). */
  away?: boolean;
}

/** What the form stands for: the `inbox on` line, and whether the away message goes out there. */
export interface InboxPlan {
  line: string;
  away: boolean;
}

const AWAY = "on";

/** The targets offered, in seconds ("none": no target). */
const TARGET_CHOICES = [300, 600, 900, 1800, 3600, 7200, 14_400, 28_800, 86_400];
const NONE = "none";

function targetSelect(id: string, current: number | null | undefined) {
  const values = [...TARGET_CHOICES];
  if (current && !values.includes(current)) values.push(current);
  values.sort((a, b) => a - b);
  return staticSelect(
    id,
    [option("No target", NONE), ...values.map((s) => option(durationWords(s), String(s)))],
    {
      initial: current ? String(current) : NONE,
    },
  );
}

export function inboxModal(data: InboxFormData, meta: InboxMeta): ModalView {
  const c = data.current;
  const every = option("Every conversation with a new customer message", "all");
  const human = option("Only conversations that need a human", "need_human");
  const send = option("Sent to the customer", "send", "Start with // or note: for a note");
  const notes = option("Notes for the team", "notes", "Answers go through the card's Reply");
  const types = data.chatTypes.map((t) => option(t.label, t.value));
  const typesChosen = types.filter((o) => c?.types.includes(o.value ?? ""));
  const hereOption = option("Say @here on a warning shown in the channel", "yes");
  const awayOption = option("Send the workspace's away message here", AWAY);
  const blocks: KnownBlock[] = [
    sectionText(
      c
        ? "*This channel's inbox.* Saving sets it as chosen here."
        : "*Mirror customers' conversations into a channel*, one thread per customer, with a card on top.",
    ),
    input(
      "channel",
      "Channel",
      {
        type: "conversations_select",
        action_id: "channel",
        filter: { include: ["public", "private"], exclude_bot_users: true },
        ...(data.channel ? { initial_conversation: data.channel } : {}),
      },
      { hint: "A private channel needs @Switchboard invited first." },
    ),
    input("filter", "Conversations", {
      type: "radio_buttons",
      action_id: "filter",
      options: [every, human],
      initial_option: c?.needHuman ? human : every,
    }),
    input(
      "types",
      "Chat types",
      {
        type: "checkboxes",
        action_id: "types",
        options: types,
        ...(typesChosen.length ? { initial_options: typesChosen } : {}),
      },
      { optional: true, hint: "None ticked: every chat type." },
    ),
    input("replies", "Thread replies", {
      type: "radio_buttons",
      action_id: "replies",
      options: [send, notes],
      initial_option: c?.replies === "notes" ? notes : send,
    }),
    input("first", "First-reply target", targetSelect("first", c?.firstSecs), {
      hint: "From the customer's first message to the team's first reply.",
    }),
    input("next", "Next-reply target", targetSelect("next", c?.nextSecs), {
      hint: "From a customer message to the next reply.",
    }),
    input(
      "here",
      "Warnings",
      {
        type: "checkboxes",
        action_id: "here",
        options: [hereOption],
        ...(c?.here ? { initial_options: [hereOption] } : {}),
      },
      {
        optional: true,
        hint: "At 80% of a target, a warning in the thread names who has it; when nobody has it, it is also shown in the channel.",
      },
    ),
    input(
      "rating",
      "Rating after Resolve",
      textInput("rating", {
        initial: c?.ratingTemplate ?? "",
        placeholder: "A template's name, like rate_us",
      }),
      {
        optional: true,
        hint: "On Resolve, this approved template with quick-reply buttons asks the customer for a rating. Empty: none.",
      },
    ),
    input(
      "away",
      "Away message",
      {
        type: "checkboxes",
        action_id: "away",
        options: [awayOption],
        ...(c?.away === false ? {} : { initial_options: [awayOption] }),
      },
      {
        optional: true,
        hint: data.awayMessage
          ? "A customer who writes outside business hours gets the workspace's away message, once per conversation per closed period."
          : "The workspace has no away message yet: an admin writes it in Settings, under Inbox.",
      },
    ),
    context(
      data.hours
        ? `Targets count in the workspace's business hours: ${data.hours}.`
        : "Targets count around the clock: an admin can set business hours in Settings.",
    ),
  ];
  const shown = c ? inboxLine(initialStateOf(blocks)) : undefined;
  const metadata =
    shown && "line" in shown ? { ...meta, was: shown.line, away: shown.away } : { ...meta, away: true };
  return modal({ callbackId: INBOX_CALLBACK, title: "Inbox", submit: "Save", metadata, blocks });
}

/** The command line the form stands for. */
export function inboxLine(
  state: Submission<InboxMeta>["state"],
): InboxPlan | { errors: Record<string, string> } {
  const channel = state.channel?.channel?.selected_conversation as string | undefined;
  if (!channel) return { errors: { channel: "Choose the inbox's channel." } };
  const words = ["inbox", "on", channel];
  if (selectedOf(state, "filter") === "need_human") words.push("need-human");
  const types = checkedOf(state, "types");
  if (types.length) words.push(`type=${types.join(",")}`);
  if (selectedOf(state, "replies") === "notes") words.push("replies=notes");
  for (const name of ["first", "next"] as const) {
    const v = selectedOf(state, name);
    if (v && v !== NONE) words.push(`${name}=${Math.round(Number(v) / 60)}m`);
  }
  if (checkedOf(state, "here").includes("yes")) words.push("here=yes");
  const rating = textOf(state, "rating")?.trim();
  if (rating && !/^[\w.-]+$/.test(rating))
    return { errors: { rating: "A template's name, without spaces, like rate_us." } };
  if (rating) words.push(`rating=${rating}`);
  return { line: words.join(" "), away: checkedOf(state, "away").includes(AWAY) };
}

async function save(plan: InboxPlan, s: Submission<InboxMeta>): Promise<FormOutcome> {
  const { line } = plan;
  const channel = /^inbox on (\S+)/.exec(line)?.[1];
  // The away message is `inbox away`'s, apart from `inbox on` (which leaves it as it is).
  const awayLine =
    plan.away !== (s.meta.away ?? true) ? `inbox away ${plan.away ? "on" : "off"} ${channel}` : "";
  // Saved as it opened: nothing is set again, nothing audited, and it says so.
  if (s.meta.was === line && !awayLine)
    return {
      answer: {
        response_action: "update",
        view: modal({
          callbackId: "sb_inbox_unchanged",
          title: "Inbox",
          close: "Done",
          blocks: [context("Nothing changed: the inbox is as it was, so nothing was saved.")],
        }),
      } as FormOutcome["answer"],
    };
  const replies = [];
  if (s.meta.was !== line) replies.push(await s.ctx.core.run(line, s.actor));
  if (awayLine && replies.every((r) => r.visibility === "in_channel"))
    replies.push(await s.ctx.core.run(awayLine, s.actor));
  const reply = replies.find((r) => r.visibility !== "in_channel") ?? {
    visibility: "in_channel" as const,
    text: replies.map((r) => r.text).join("\n"),
    blocks: replies.flatMap((r) => r.blocks ?? []),
  };
  // Refused (not a writer, a private channel it is not in…): said under the channel, the form kept.
  if (reply.visibility !== "in_channel")
    return {
      answer: {
        response_action: "errors",
        errors: errorsFor(
          { channel: reply.text.replace(/[*`_]/g, "").replace(/<[#@]([A-Z0-9]+)>/g, "$1") },
          s.view,
        ),
      },
    };
  return {
    after: async () => {
      await postOutcome(
        s.ctx,
        s.client,
        { channel, userId: s.actor.userId },
        { text: reply.text, blocks: reply.blocks },
      );
    },
    answer: { response_action: "clear" },
  };
}

export const inboxForm: SlackForm<"inbox", InboxMeta, InboxPlan> = {
  ...askedIn("inbox", INBOX_CALLBACK, inboxModal),
  name: "inbox form",
  submit: {
    check: ({ state }) => {
      const r = inboxLine(state);
      return "errors" in r ? r : { plan: r };
    },
    run: save,
  },
};
