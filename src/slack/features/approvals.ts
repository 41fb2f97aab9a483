// The approval cards' Slack side (issue 28 §3), the core's ApprovalCards:
// a request's card goes to the audit channel, mentioning the approvers, when
// one is set, else by DM to each approver (user groups' members, the
// requester left out: nobody approves their own). The core keeps every
// copy's channel and ts with the request (src/store/approvals.ts), so
// whoever decides, on any replica, redraws them all.
import type { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import type { ApprovalCards, CardCopy } from "../../campaigns/approval-deps.ts";
import type { ResolveGroupMembers } from "../../commands/permissions.ts";
import type { Logger } from "../../platform/log.ts";
import type { ApprovalRecord } from "../../store/approvals.ts";
import type { ChannelPostQueue } from "../io/post-queue.ts";
import { slackCode } from "../io/slack-errors.ts";

export interface ApprovalCardsOptions {
  client: webApi.WebClient;
  posts: ChannelPostQueue;
  /** The workspace's audit channel now (its settings). */
  auditChannel: () => string | undefined;
  resolveGroupMembers?: ResolveGroupMembers;
  logger: Logger;
}

type View = { text: string; blocks: KnownBlock[] };

export function slackApprovalCards(o: ApprovalCardsOptions): ApprovalCards {
  const { client, posts, logger: log } = o;

  /** The people behind the approvers (groups' members), without the requester. */
  const people = async (r: ApprovalRecord, approvers: string[]): Promise<string[]> => {
    const out = new Set<string>();
    for (const a of approvers) {
      if (!a.startsWith("S")) out.add(a);
      else for (const m of (await o.resolveGroupMembers?.(a).catch(() => [] as string[])) ?? []) out.add(m);
    }
    out.delete(r.requestedBy);
    return [...out];
  };

  const postCopy = async (channel: string, view: View, lead = ""): Promise<CardCopy | undefined> => {
    const res = await posts.post(client, {
      channel,
      text: `${lead}${view.text}`,
      blocks: view.blocks,
      unfurl_links: false,
      unfurl_media: false,
    });
    return res.ts ? { channel: res.channel ?? channel, ts: res.ts } : undefined;
  };

  return {
    async post(r, view) {
      // The ids as the settings keep them, from the card's `<@U…>` / `<!subteam^S…>`.
      const approvers = r.card.approvers.map((m) => m.replace(/^<[@!](?:subteam\^)?|>$/g, ""));
      const channel = o.auditChannel();
      if (channel) {
        try {
          const copy = await postCopy(channel, view, `${r.card.approvers.join(" ")}: `);
          if (copy) return { where: `in <#${channel}>`, copies: [copy] };
        } catch (err) {
          log.warn(
            { code: slackCode(err), channel },
            "could not post the approval card to the audit channel; sending it by DM",
          );
        }
      }
      const copies: CardCopy[] = [];
      const reached: string[] = [];
      for (const userId of await people(r, approvers)) {
        try {
          const copy = await postCopy(userId, view);
          if (copy) {
            copies.push(copy);
            reached.push(userId);
          }
        } catch (err) {
          log.warn({ code: slackCode(err) }, "could not send an approval card by DM");
        }
      }
      if (!reached.length)
        return {
          where:
            "of nobody: no approver but you could be reached (nobody approves their own campaign; an admin can add approvers in the settings)",
          copies,
        };
      return { where: `by direct message of ${reached.map((u) => `<@${u}>`).join(", ")}`, copies };
    },

    async update(copies, view) {
      for (const copy of copies) {
        await client.chat
          .update({ channel: copy.channel, ts: copy.ts, text: view.text, blocks: view.blocks })
          .catch((err) => log.warn({ code: slackCode(err) }, "could not update a copy of an approval card"));
      }
    },

    async tell(userId, text, blocks) {
      await posts.post(client, { channel: userId, text, ...(blocks ? { blocks } : {}), unfurl_links: false });
    },
  };
}
