// The Home tab: what Switchboard could not tell the person earlier (kept
// outcomes, issue 27 §4, with Got it), shortcuts (buttons that run `campaign new`, `send`, `import`,
// which open their forms), the account (/me, the key masked), the running
// campaigns with their bars, the viewer's report schedules, and the latest
// writes from the audit table. Each part is built on its own: one failing
// (the API down) shows a line saying so, the rest still shows.
//
// Cost: opening the tab is frequent, so the account and the running
// campaigns (1 list + 7 reads per campaign, background lane) are cached a
// short while and shared by every viewer; schedules and audit come from the
// store.

import type { Button, HomeView, KnownBlock } from "@slack/types";
import { isApiError } from "../../../api/errors.ts";
import type { Campaign, MessagingApi } from "../../../api/types.ts";
import { context, esc, section, truncate } from "../../../blocks/blocks.ts";
import { cardHead } from "../../../campaigns/card.ts";
import { ACTION } from "../../../commands/types.ts";
import { maskSecret } from "../../../platform/log.ts";
import { targetLabel } from "../../../reports/render.ts";
import { formatLocal, nextRuns, parseTarget } from "../../../reports/schedule.ts";
import type { Clock } from "../../../reports/scheduler.ts";
import type { ReportService } from "../../../reports/service.ts";
import { type CampaignSummary, summarizeCampaign } from "../../../reports/summary.ts";
import type { AuditEntry } from "../../../store/audit.ts";
import type { WorkspaceStores } from "../../../store/workspace-stores.ts";
import { auditSentence } from "../audit-words.ts";

export { auditSentence };

/** Slack's limit for a Home tab. */
export const HOME_MAX_BLOCKS = 100;
const RUNNING_SHOWN = 8;
const SCHEDULES_SHOWN = 10;
const AUDIT_SHOWN = 8;
/** Kept outcomes listed at the top; more are counted ("…and N more"). */
export const KEPT_SHOWN = 10;

export interface HomeOptions {
  client: MessagingApi;
  /** The workspace's stores: its audit entries, last counts and kept outcomes. */
  stores: WorkspaceStores;
  /** The API key in use: only its last 4 characters are ever shown. */
  apiKey: string;
  reports?: ReportService;
  clock?: Clock;
  /** How long the account and running campaigns are reused between viewers (default 60 s). */
  cacheMs?: number;
  /**
   * The running campaigns' figures share the background part of the read
   * budget and may take a while: the tab is published without them after
   * `waitMs` (default 1.5 s), then published again through this when they come.
   */
  republish?: (userId: string, view: HomeView) => Promise<void>;
  waitMs?: number;
  /** Whether the viewer may change the workspace's settings (admins): they get a Settings button. */
  mayAdminister?: (userId: string) => Promise<boolean>;
  /**
   * Whether the viewer has `access` (the core's may(): SWITCHBOARD_WRITERS): the write shortcuts
   * (New campaign, Send a message, Import contacts) are shown only to those who may. Unset: to everyone.
   */
  may?: (userId: string, access: "write" | "broadcast") => Promise<boolean>;
}

interface Account {
  organization: string;
  plan: string;
  keyName: string;
  scopes: string;
}

interface Running {
  campaigns: CampaignSummary[];
  more: number;
}

const _pct = (r: number | null) => (r === null ? "–" : `${(r * 100).toFixed(1)}%`);
const slackDate = (at: Date, format = "{date_short_pretty} {time}") =>
  `<!date^${Math.floor(at.getTime() / 1000)}^${format}|${at.toISOString().slice(0, 16).replace("T", " ")} UTC>`;

/** Slack's own tokens in mrkdwn: mentions, channels, dates and links (kept as they are). */
const SLACK_TOKEN = /(<(?:[@#!]|https?:|mailto:)[^<>]*>)/;

/**
 * Mrkdwn made by Switchboard (a kept outcome: its mentions and dates are
 * meant) said safely: its Slack tokens kept, every other `&`, `<`, `>`
 * escaped (a file's or a campaign's name as typed), an entity not escaped twice.
 */
export function safeMrkdwn(t: string): string {
  return t
    .split(SLACK_TOKEN)
    .map((part, i) => (i % 2 === 1 ? part : esc(part).replace(/&amp;(amp|lt|gt);/g, "&$1;")))
    .join("");
}

/** `t` within `max` characters, never ending inside a `<…>` token or an `&…;` entity. */
export function cutMrkdwn(t: string, max: number): string {
  if (t.length <= max) return t;
  const cut = t
    .slice(0, max - 1)
    .replace(/<[^>]*$/, "")
    .replace(/&[#a-z0-9]*$/i, "");
  return `${cut}…`;
}

function nameOf(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "object") {
    const o = v as { name?: unknown; id?: unknown };
    return String(o.name ?? o.id ?? "—");
  }
  return String(v);
}

/** The Home tab's line when the API could not be read: why in words, without the operation's name. */
export function failureLine(err: unknown): string {
  const op = isApiError(err) ? err.operation : undefined;
  const what = !isApiError(err)
    ? "it did not answer"
    : op && err.message.startsWith(`${op}: `)
      ? err.message.slice(op.length + 2)
      : err.message;
  return `:warning: The messaging API could not be read (${esc(truncate(what, 200))}). Open the tab again later.`;
}

/** Cached value shared by viewers; a failure is not cached. */
class Cached<T> {
  private value?: { at: number; data: Promise<T> };
  private readonly ttlMs: number;
  private readonly clock: Clock;
  private readonly load: () => Promise<T>;
  constructor(ttlMs: number, clock: Clock, load: () => Promise<T>) {
    this.ttlMs = ttlMs;
    this.clock = clock;
    this.load = load;
  }
  get(): Promise<T> {
    const now = this.clock.now().getTime();
    if (this.value && now - this.value.at < this.ttlMs) return this.value.data;
    const data = this.load();
    this.value = { at: now, data };
    data.catch(() => {
      if (this.value?.data === data) this.value = undefined;
    });
    return data;
  }
}

const settingsButton = {
  type: "button" as const,
  text: { type: "plain_text" as const, text: "Settings" },
  value: "settings",
};

/**
 * The Home tab of a workspace not connected to a messaging account yet: the
 * not-connected answer (src/commands/not-connected.ts), with its Connect
 * button for those who may connect it, under what Switchboard could not tell
 * the viewer earlier (`kept`: keptOutcomeBlocks), as on a connected one's.
 */
export function notConnectedHome(answer: { blocks: KnownBlock[] }, kept: KnownBlock[] = []): HomeView {
  return {
    type: "home",
    blocks: [section("*Run the messaging account from Slack.*"), ...kept, ...answer.blocks].slice(
      0,
      HOME_MAX_BLOCKS,
    ),
  };
}

/**
 * The outcomes Switchboard could not tell the viewer (kept by
 * src/slack/outcomes.ts), newest first, with Got it (ACTION.keptSeen, its
 * value the newest shown); nothing when there are none. Read from the
 * store at each build, never cached: once taken they are gone.
 */
export async function keptOutcomeBlocks(
  stores: Pick<WorkspaceStores, "undelivered">,
  userId: string,
): Promise<KnownBlock[]> {
  const kept = await stores.undelivered.list(userId).catch(() => []);
  if (!kept.length) return [];
  const newest = [...kept].reverse();
  const shown = newest.slice(0, KEPT_SHOWN);
  // Each line is the outcome's own text, Slack mrkdwn as the next command says it: its
  // mentions kept, any other `<`, `>`, `&` escaped (safeMrkdwn), its leading emoji dropped
  // (the head has one), cut to share one section (≤ 3000) without a broken token.
  const room = Math.floor(2800 / shown.length) - 80;
  const lines = shown.map(
    (o) => `• ${cutMrkdwn(safeMrkdwn(o.text.replace(/^:[a-z0-9_+-]+:\s*/, "")), room)} · ${slackDate(o.at)}`,
  );
  const more = kept.length - shown.length;
  const head =
    kept.length === 1
      ? ":information_source: *Switchboard could not tell you this earlier*"
      : `:information_source: *Switchboard could not tell you these earlier* (${kept.length})`;
  return [
    section(`${head}\n${lines.join("\n")}`),
    ...(more > 0 ? [context(`…and ${more} more.`)] : []),
    {
      type: "actions",
      block_id: "home_kept",
      elements: [
        {
          type: "button",
          action_id: ACTION.keptSeen,
          text: { type: "plain_text", text: "Got it" },
          value: String(newest[0]!.at.getTime()),
        },
      ],
    },
    { type: "divider" },
  ];
}

export function createHomeView(opts: HomeOptions): (userId: string) => Promise<HomeView> {
  const clock = opts.clock ?? { now: () => new Date() };
  const ttl = opts.cacheMs ?? 60_000;

  const account = new Cached<Account>(ttl * 5, clock, async () => {
    const me = await opts.client.getMe();
    const key = (me.apiKey ?? me.api_key ?? me.key) as { name?: unknown; scopes?: unknown } | undefined;
    return {
      organization: nameOf(me.organization ?? me.org),
      plan: nameOf(me.plan),
      keyName: typeof key?.name === "string" ? key.name : "",
      scopes: Array.isArray(key?.scopes) ? key.scopes.join(", ") : "",
    };
  });

  // The last count, kept per workspace in the store: shown at once while the next one is made.
  const counts = opts.stores.homeCounts<Running>();
  const running = new Cached<Running>(ttl, clock, async () => {
    const page = await opts.client.listCampaigns({ status: "running", limit: 100 }, { lane: "background" });
    const list = page.items.filter((c): c is Campaign & { id: number } => typeof c.id === "number");
    const chosen = list.slice(0, RUNNING_SHOWN);
    const campaigns: CampaignSummary[] = [];
    for (const c of chosen) {
      try {
        campaigns.push(await summarizeCampaign(opts.client, c.id, { lane: "background", campaign: c }));
      } catch (err) {
        if (!(isApiError(err) && err.kind === "not_found")) throw err;
      }
    }
    const counted = { campaigns, more: Math.max(0, (page.total ?? list.length) - chosen.length) };
    await counts.keep(counted, clock.now()).catch(() => {});
    return counted;
  });

  // The shortcuts: the write ones (each opens its form) for those who may write, Help for everyone.
  const SHORTCUTS: Array<{ label: string; line: string; style?: "primary"; write?: true }> = [
    { label: "New campaign", line: "campaign new", style: "primary", write: true },
    { label: "Send a message", line: "send", write: true },
    { label: "Import contacts", line: "import", write: true },
    { label: "Help", line: "help" },
  ];
  const shortcutButton = (s: (typeof SHORTCUTS)[number], i: number) => ({
    type: "button" as const,
    // Unique within the view; the run listener matches `sb_run` and its `:n` suffixes.
    action_id: i === 0 ? ACTION.run : `${ACTION.run}:${i + 1}`,
    text: { type: "plain_text" as const, text: s.label },
    value: s.line,
    ...(s.style ? { style: s.style } : {}),
  });

  async function accountBlocks(): Promise<KnownBlock[]> {
    try {
      const a = await account.get();
      const key = `${a.keyName ? `${esc(a.keyName)} ` : ""}\`${maskSecret(opts.apiKey)}\``;
      // Who the app acts for, in one quiet line: the work comes first on Home.
      return [
        context(
          truncate(
            `*${esc(a.organization)}* · ${esc(a.plan)} plan · API key ${key}${a.scopes && !(a.keyName ?? "").includes(a.scopes) ? ` (${esc(a.scopes)})` : ""}`,
            2000,
          ),
        ),
      ];
    } catch (err) {
      return [context(`Account: ${failureLine(err)}`)];
    }
  }

  async function runningBlocks(userId: string, known?: Running): Promise<KnownBlock[]> {
    const out: KnownBlock[] = [];
    try {
      const loading = known ? Promise.resolve(known) : running.get();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((resolve) => {
        // Without a way to publish again, wait for the figures however long they take.
        if (opts.republish) timer = setTimeout(() => resolve(undefined), opts.waitMs ?? 1_500);
      });
      const r = await Promise.race([loading, late]).finally(() => clearTimeout(timer));
      if (!r) {
        // Publish what is known now (the last count, with its time); the new figures follow in a second publish.
        loading.then(
          async (value) => opts.republish?.(userId, await build(userId, value)),
          () => {},
        );
        const last = await counts.last().catch(() => undefined);
        if (!last)
          return [section("*Running campaigns*"), context(":hourglass_flowing_sand: Counting recipients…")];
        return [
          ...figureBlocks(last.figures),
          context(`:hourglass_flowing_sand: Figures of ${slackDate(last.countedAt)}; counting again…`),
        ];
      }
      out.push(...figureBlocks(r));
    } catch (err) {
      out.push(section("*Running campaigns*"), context(failureLine(err)));
    }
    return out;
  }

  /** The running campaigns' figures, each with its bar (the campaign card's lines) and a Report button. */
  function figureBlocks(r: Running): KnownBlock[] {
    const out: KnownBlock[] = [];
    {
      const n = r.campaigns.length + r.more;
      out.push(section(`*Running campaigns* (${n})`));
      if (!r.campaigns.length) out.push(context("No campaign is running."));
      r.campaigns.forEach((s, i) => {
        // The campaign card's own lines (src/campaigns/card.ts): the same status, figures and bar everywhere.
        out.push({
          type: "section",
          text: {
            type: "mrkdwn",
            text: truncate(cardHead({ name: s.name, status: s.status, summary: s }), 3000),
          },
          accessory: {
            type: "button",
            action_id: `${ACTION.run}:${10 + i}`,
            text: { type: "plain_text", text: "Report" },
            value: `report now ${s.id}`,
          },
        });
      });
      if (r.more > 0) out.push(context(`…and ${r.more} more: \`/sb campaigns status=running\`.`));
    }
    return out;
  }

  async function scheduleBlocks(userId: string): Promise<KnownBlock[]> {
    if (!opts.reports) return [];
    const rows = await opts.reports.listSchedules({ createdBy: userId });
    if (!rows.length) {
      return [
        section("*Your report schedules*"),
        context("None yet. In a channel, `/sb report running every weekday at 09:00` posts a report there."),
      ];
    }
    const now = clock.now();
    const lines = rows.slice(0, SCHEDULES_SHOWN).map((r) => {
      const t = parseTarget(r.target);
      const target = "field" in t ? esc(r.target) : targetLabel(t);
      const [next] = nextRuns(r.cron, r.tz, now, 1);
      return `*#${r.number}* ${target} in <#${r.channel}> · ${esc(r.description)} · next ${esc(next ? formatLocal(next, r.tz) : "—")}`;
    });
    const more =
      rows.length > SCHEDULES_SHOWN ? [context(`…and ${rows.length - SCHEDULES_SHOWN} more.`)] : [];
    return [section(`*Your report schedules* (${rows.length})\n${lines.join("\n")}`), ...more];
  }

  const keptBlocks = (userId: string) => keptOutcomeBlocks(opts.stores, userId);

  async function auditBlocks(): Promise<KnownBlock[]> {
    const entries = await opts.stores.audit.list({ limit: AUDIT_SHOWN });
    if (!entries.length)
      return [section("*Recent changes*"), context("No changes made through Switchboard yet.")];
    const line = (e: AuditEntry) =>
      `${e.ok ? ":white_check_mark:" : ":x:"} ${auditSentence(e)} · ${slackDate(e.at)}`;
    return [section(`*Recent changes*\n${entries.map(line).join("\n")}`)];
  }

  /** The shortcuts the viewer may use: the write ones for writers, Settings for those who may change them. */
  async function shortcutsFor(userId: string): Promise<KnownBlock> {
    const [writes, admin] = await Promise.all([
      opts.may ? opts.may(userId, "write").catch(() => false) : true,
      opts.mayAdminister?.(userId).catch(() => false) ?? false,
    ]);
    const elements: Button[] = SHORTCUTS.map(shortcutButton).filter(
      (_b, i) => writes || !SHORTCUTS[i]!.write,
    );
    if (admin) elements.push({ ...settingsButton, action_id: `${ACTION.run}:5` });
    return { type: "actions", block_id: "home_shortcuts", elements };
  }

  async function build(userId: string, known?: Running): Promise<HomeView> {
    const [kept, acct, run, sched, audit, buttons] = await Promise.all([
      keptBlocks(userId),
      accountBlocks(),
      runningBlocks(userId, known),
      scheduleBlocks(userId),
      auditBlocks(),
      shortcutsFor(userId),
    ]);
    const divider: KnownBlock = { type: "divider" };
    const blocks: KnownBlock[] = [
      ...kept,
      section("*Run the messaging account from Slack.* Type `/sb help` anywhere, or start here:"),
      buttons,
      divider,
      ...run,
      ...(sched.length ? [divider, ...sched] : []),
      divider,
      ...audit,
      divider,
      ...acct,
      context(`Updated ${slackDate(clock.now(), "{date_short_pretty} {time_secs}")}`),
    ];
    return { type: "home", blocks: blocks.slice(0, HOME_MAX_BLOCKS) };
  }
  return (userId) => build(userId);
}
