// `/sb connect` in Slack: the workspace's API key (or, with the embedded
// sandbox, a demo account). The key is checked with GET /me by the
// workspace's admin (src/commands/workspace-admin.ts) before it is kept; a
// refused key keeps the form open with the reason under the field, and
// nothing is kept. The answer names the organization.
import type { KnownBlock, ModalView } from "@slack/types";
import { slackDate } from "../../blocks/blocks.ts";
import type { ConnectionSummary } from "../../commands/workspace-admin.ts";
import { notAdministrator, personOf } from "../../commands/workspace-admin.ts";
import { errorsFor } from "./field-errors.ts";
import { askedIn, type FormOutcome, type SlackForm, type Submission } from "./form.ts";
import { context, input, modal, option, sectionText, selectedOf, textInput, textOf } from "./kit.ts";
import { postLine } from "./submission.ts";

export const CONNECT_CALLBACK = "sb_connect";

export interface ConnectMeta {
  ch?: string;
}

type ConnectPlan = { demo: true } | { demo: false; key: string };

const KEY_OPTION = option("Paste an API key", "key");
const DEMO_OPTION = option("Use a demo account", "demo", "A sandbox organization of this workspace's own");

/** The account in use, in one line. */
export function connectionLine(c: ConnectionSummary): string {
  const access = c.readOnly === undefined ? "" : c.readOnly ? " with a read-only key" : " (read and write)";
  return `Connected now to *${c.organization}*${access}, by ${personOf(c.connectedBy)} on ${slackDate(c.connectedAt)}. A new key replaces it.`;
}

export function connectModal(
  data: { demo: boolean; connection?: ConnectionSummary },
  meta: ConnectMeta,
): ModalView {
  const blocks: KnownBlock[] = [
    sectionText(
      "Connect this workspace to its messaging account: Switchboard then acts with this account's API key for everyone here.",
    ),
  ];
  if (data.connection) blocks.push(context(connectionLine(data.connection)));
  if (data.demo)
    blocks.push(
      input(
        "source",
        "Account",
        {
          type: "radio_buttons",
          action_id: "source",
          options: [KEY_OPTION, DEMO_OPTION],
          initial_option: KEY_OPTION,
        },
        { optional: true },
      ),
    );
  blocks.push(
    input("key", "API key", textInput("key", { placeholder: "Paste the API key", max: 500 }), {
      optional: data.demo,
      hint: "Checked with the messaging API before it is kept, encrypted. It is never shown again, not even to admins.",
    }),
  );
  return modal({
    callbackId: CONNECT_CALLBACK,
    title: "Connect Switchboard",
    submit: "Connect",
    metadata: meta,
    blocks,
  });
}

/** Errors in plain words under a field: Slack shows no markup there. */
const plainError = (text: string) => text.replace(/[*`_]/g, "").replace(/<@([A-Z0-9]+)>/g, "$1");

async function connect(plan: ConnectPlan, s: Submission<ConnectMeta>): Promise<FormOutcome> {
  const admin = s.ctx.core.admin;
  const refuse = (text: string): FormOutcome => ({
    answer: { response_action: "errors", errors: errorsFor({ key: plainError(text) }, s.view) },
  });
  if (!admin) return refuse("Connecting is not set up in this Switchboard.");
  if (!(await admin.mayAdminister(s.actor)))
    return refuse(await notAdministrator(admin, "connect this workspace"));
  const outcome = plan.demo ? await admin.connectDemo(s.actor) : await admin.connect(plan.key, s.actor);
  if (!outcome.ok) return refuse(outcome.message);
  return {
    // Where the form was opened (else a DM): also the answer when the check outlasted Slack's 3 s.
    after: () => postLine(s, "white_check_mark", outcome.message),
    answer: {
      response_action: "update",
      view: modal({
        callbackId: "sb_connected",
        title: "Connected",
        close: "Done",
        blocks: [
          sectionText(`:white_check_mark: ${outcome.message}`),
          context(
            "Type `/sb help` to start; `/sb settings` sets who may make changes, the audit channel and more.",
          ),
        ],
      }),
    } as FormOutcome["answer"],
  };
}

export const connectForm: SlackForm<"connect", ConnectMeta, ConnectPlan> = {
  ...askedIn("connect", CONNECT_CALLBACK, connectModal),
  name: "connect form",
  submit: {
    check: ({ state }) => {
      if (selectedOf(state, "source") === "demo") return { plan: { demo: true } };
      const key = textOf(state, "key")?.trim();
      if (!key) return { errors: { key: "Paste the API key of your messaging account." } };
      return { plan: { demo: false, key } };
    },
    run: connect,
  },
};
