// A small, real CommandCore for the Slack tests that need answers the real
// core does not give on purpose (a crash, a slow form, an over-limit
// message). It keeps the interface's promises: confirm runs a write once.
import type { KnownBlock } from "@slack/types";
import type { MessagingApi } from "../../src/api/types.ts";
import type { FormRequest } from "../../src/commands/form-kinds.ts";
import { UserError } from "../../src/commands/registry.ts";
import {
  ACTION,
  type Access,
  type Actor,
  type CommandCore,
  type CoreAuditEntry,
  type Reply,
  type StartOutcome,
} from "../../src/commands/types.ts";

const section = (text: string): KnownBlock => ({ type: "section", text: { type: "mrkdwn", text } });

export class TestCore implements CommandCore {
  /** Campaign sends actually performed, by confirmation id. */
  readonly sends: string[] = [];
  readonly dismissed: string[] = [];
  readonly lines: Array<{ line: string; actor: Actor }> = [];
  private readonly pending = new Map<string, { campaign: string; state: "pending" | "done" | "dropped" }>();
  private seq = 0;
  /** Runs before a `slowform` modal is returned (a test ages the trigger here). */
  beforeSlowForm: () => void = () => {};
  /** The API forms and uploads reach through perform(); none unless a test gives one. */
  readonly api?: MessagingApi;
  /** Everyone has every access, unless a test says otherwise. */
  allowed: (actor: Actor, access: Access) => boolean = () => true;
  /** The names of the messaging channels, as `/sb channel name` would have given them. */
  names: Record<number, string> = {};
  /** What audit() was given. */
  readonly audited: Array<{ actor: Actor; entry: CoreAuditEntry }> = [];

  constructor(opts: { api?: MessagingApi } = {}) {
    this.api = opts.api;
  }

  async may(actor: Actor, access: Access): Promise<boolean> {
    return this.allowed(actor, access);
  }

  async audit(actor: Actor, entry: CoreAuditEntry): Promise<void> {
    this.audited.push({ actor, entry });
  }

  async channelNames(): Promise<Record<number, string>> {
    return { ...this.names };
  }

  async perform<T>(
    actor: Actor,
    what: { access: Access; command: string },
    work: (api: MessagingApi) => Promise<T>,
  ): Promise<T> {
    if (!(await this.may(actor, what.access))) throw new UserError(`You may not ${what.command} here.`);
    if (!this.api) throw new UserError("This test core has no messaging API.");
    return work(this.api);
  }

  async startHeld(): Promise<StartOutcome> {
    throw new UserError("This test core starts no held campaign.");
  }

  async run(line: string, actor: Actor): Promise<Reply> {
    this.lines.push({ line, actor });
    const words = line
      .replace(/^\/\S+\s*/, "")
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    const [cmd = "help", ...rest] = words;
    if (cmd === "help")
      return {
        visibility: "ephemeral",
        text: "Switchboard help",
        blocks: [section("*Commands*: help, tags, …")],
      };
    if (cmd === "tags") {
      const page = Number(rest.find((w) => w.startsWith("page="))?.slice(5) ?? 1);
      return {
        visibility: "ephemeral",
        text: `Tags, page ${page} of 3`,
        blocks: [
          section(`Tags page ${page} of 3: tag-${page}a, tag-${page}b`),
          {
            type: "actions",
            elements: [
              ...(page > 1
                ? [
                    {
                      type: "button" as const,
                      action_id: `${ACTION.run}:2`,
                      text: { type: "plain_text" as const, text: "Previous" },
                      value: `tags page=${page - 1}`,
                    },
                  ]
                : []),
              ...(page < 3
                ? [
                    {
                      type: "button" as const,
                      action_id: ACTION.run,
                      text: { type: "plain_text" as const, text: "Next" },
                      value: `tags page=${page + 1}`,
                    },
                  ]
                : []),
            ],
          },
        ],
      };
    }
    if (cmd === "tag" && rest[0] === "add") {
      return {
        visibility: "in_channel",
        text: `Tag ${rest[1]} created`,
        blocks: [section(`Tag *${rest[1]}* created.`)],
      };
    }
    if (cmd === "campaign" && rest[1] === "send") {
      const id = `c${++this.seq}`;
      this.pending.set(id, { campaign: rest[0] ?? "?", state: "pending" });
      return {
        visibility: "ephemeral",
        text: `Send campaign ${rest[0]}?`,
        confirmation: { id, prompt: `Send campaign ${rest[0]}?` },
        blocks: [
          section(`Send campaign *${rest[0]}* to 3 recipients?`),
          {
            type: "actions",
            elements: [
              {
                type: "button",
                action_id: ACTION.confirm,
                text: { type: "plain_text", text: "Send" },
                value: id,
                style: "danger",
              },
              {
                type: "button",
                action_id: ACTION.dismiss,
                text: { type: "plain_text", text: "Cancel" },
                value: id,
              },
            ],
          },
        ],
      };
    }
    if (cmd === "campaign" && rest[0] === "new")
      return {
        visibility: "ephemeral",
        text: "Opening the campaign form",
        blocks: [],
        form: form("campaign"),
      };
    if (cmd === "slowform") {
      this.beforeSlowForm();
      return { visibility: "ephemeral", text: "The form is ready", blocks: [], form: form("import") };
    }
    if (cmd === "boom") throw new Error("database exploded at /srv/secret/path.ts:42");
    if (cmd === "long")
      return {
        visibility: "ephemeral",
        text: "Many",
        blocks: Array.from({ length: 60 }, (_, i) => section(`row ${i}`)),
      };
    if (cmd === "toolong")
      return { visibility: "ephemeral", text: "Too long", blocks: [section("x".repeat(3001))] };
    return {
      visibility: "ephemeral",
      text: `Unknown command ${cmd}`,
      blocks: [section(`Unknown command \`${cmd}\``)],
    };
  }

  async confirm(id: string, actor: Actor): Promise<Reply> {
    const p = this.pending.get(id);
    if (!p)
      return {
        visibility: "ephemeral",
        text: "No such confirmation",
        blocks: [section("No such confirmation.")],
      };
    if (p.state !== "pending")
      return {
        visibility: "ephemeral",
        text: "Already handled",
        blocks: [section("This was already handled.")],
      };
    p.state = "done";
    // Let the other click arrive while this one is "sending".
    await new Promise((r) => setTimeout(r, 50));
    this.sends.push(id);
    return {
      visibility: "in_channel",
      text: `Campaign ${p.campaign} is sending`,
      blocks: [section(`Campaign *${p.campaign}* is sending (confirmed by <@${actor.userId}>).`)],
    };
  }

  async dismiss(id: string): Promise<Reply> {
    const p = this.pending.get(id);
    if (p?.state === "pending") p.state = "dropped";
    this.dismissed.push(id);
    return { visibility: "ephemeral", text: "Cancelled", blocks: [section("Cancelled: nothing was sent.")] };
  }
}

/** A form request as the real core makes it; the app picks the form (src/slack/forms/index.ts). */
function form(kind: "campaign" | "import"): FormRequest {
  return kind === "campaign"
    ? { kind, data: { channels: [1], tags: [], groups: [] } }
    : { kind, data: { groups: [] } };
}
