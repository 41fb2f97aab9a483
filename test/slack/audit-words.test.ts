// Every kind of write has its sentence on the Home tab and in the audit
// channel (issue 30 §2): the inbox on and off, assign, resolve, channel names,
// saved replies; never "@alice: a change".
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auditSentence } from "../../src/slack/features/audit-words.ts";
import type { AuditEntry } from "../../src/store/audit.ts";

const entry = (operation: string, answer: Record<string, unknown>, ok = true): AuditEntry =>
  ({
    at: new Date("2026-11-27T10:00:00Z"),
    actor: "U0ALICE",
    via: "slack",
    command: "inbox …",
    operation,
    ok,
    answer,
  }) as AuditEntry;

/** Every `ctx.audit("…")` of the commands, `inbox.${word}` read as its words. */
function auditedOperations(): string[] {
  const out = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts"))
        for (const m of readFileSync(path, "utf8").matchAll(
          /\.audit\(\s*(?:"([\w.]+)"|`inbox\.\$\{word\}`|(r\.created \? "inbox\.on" : "inbox\.filter"))/g,
        )) {
          if (m[1]) out.add(m[1]);
          else if (m[2]) {
            out.add("inbox.on");
            out.add("inbox.filter");
          } else {
            out.add("inbox.resolve");
            out.add("inbox.reopen");
          }
        }
    }
  };
  walk(new URL("../../src/commands", import.meta.url).pathname);
  return [...out].sort();
}

describe("audit sentences (issue 30)", () => {
  it("say each of Switchboard's own writes in words, naming people, channels and customers", () => {
    const said = (op: string, a: Record<string, unknown>) => auditSentence(entry(op, a));
    expect(said("inbox.on", { channel: "C0SUPPORT" })).toBe("<@U0ALICE> turned the inbox on in <#C0SUPPORT>");
    expect(said("inbox.off", { channel: "C0SUPPORT" })).toBe(
      "<@U0ALICE> turned the inbox off in <#C0SUPPORT>",
    );
    expect(
      said("inbox.assign", { channel: "C0S", chatUserId: 4, assignee: "U0BOB", customer: "Ana García" }),
    ).toBe("<@U0ALICE> gave the conversation with *Ana García* to <@U0BOB>");
    expect(said("inbox.resolve", { channel: "C0S", chatUserId: 4, customer: "Ana García" })).toBe(
      "<@U0ALICE> resolved the conversation with *Ana García*",
    );
    expect(said("nameChannel", { id: 2, name: "Support line", before: null })).toBe(
      "<@U0ALICE> named messaging channel 2 *Support line*",
    );
    expect(said("nameChannel", { id: 2, name: "Help desk", before: "Support line" })).toBe(
      "<@U0ALICE> renamed the messaging channel *Support line* to *Help desk*",
    );
  });

  it("the away message in words: Switchboard's own send, its outcome; an inbox turning it off (issue 40 §1)", () => {
    const away = (outcome: string) =>
      auditSentence({
        ...entry("inbox.away.message", { outcome, customer: "Ana García", chatUserId: 4, channel: "C0S" }),
        actor: "switchboard",
      });
    expect(away("sent")).toBe("Switchboard sent the away message to *Ana García* in <#C0S>");
    expect(away("unknown")).toMatch(
      /^Whether Switchboard's away message reached \*Ana García\* in <#C0S> is not known/,
    );
    expect(auditSentence(entry("inbox.away", { channel: "C0S", on: false }))).toBe(
      "<@U0ALICE> turned the away message off in the inbox in <#C0S>",
    );
  });

  it("an automation's change in words, its address masked as kept (issue 40 §3)", () => {
    const said = (op: string, a: Record<string, unknown>) => auditSentence(entry(op, a));
    const url = "https://hooks.slack.com/…";
    expect(said("automation.add", { number: 2, event: "conversation.resolved", url })).toBe(
      "<@U0ALICE> added automation 2 (`conversation.resolved` to https://hooks.slack.com/…)",
    );
    expect(said("automation.rotate", { number: 2, event: "campaign.started", url })).toBe(
      "<@U0ALICE> gave automation 2 (`campaign.started` to https://hooks.slack.com/…) a new signing secret",
    );
  });

  it("every write the commands audit has its own sentence, never “a change”", () => {
    const ops = auditedOperations();
    expect(ops).toEqual(
      expect.arrayContaining(["inbox.assign", "inbox.off", "inbox.on", "inbox.resolve", "nameChannel"]),
    );
    for (const op of ops) {
      const s = auditSentence(
        entry(op, { channel: "C0S", chatUserId: 4, customer: "Ana", name: "x", id: 1 }),
      );
      expect(s, op).not.toMatch(/a change|: [a-z]+\.[a-z]+|undefined/);
      expect(s, op).toMatch(/^<@U0ALICE> [a-z]+/);
    }
  });

  it("says a campaign's life in words (issue 37): started, held for a time, cancelled, skipped, failed, a test", () => {
    const at = "2026-11-29T07:00:00.000Z";
    const token = /<!date\^1795935600\^\{date_short_pretty\} \{time\}\|[^>]*>/;
    const said = (e: Partial<AuditEntry>) =>
      auditSentence({ ...entry("x", {}), command: "campaign 4 send", ...e } as AuditEntry);
    expect(said({ operation: "sendCampaign", answer: { id: 4, name: "Spring sale" }, how: "typed" })).toBe(
      "<@U0ALICE> started *Spring sale*",
    );
    expect(said({ operation: "sendCampaign", answer: { id: 4, name: "Spring sale" }, how: "approval" })).toBe(
      "<@U0ALICE> started *Spring sale* from the approval message",
    );
    expect(
      said({
        operation: "sendCampaign",
        command: "campaign 4 send (held start)",
        answer: { name: "Spring sale" },
      }),
    ).toBe("*Spring sale* started at the time <@U0ALICE> set");
    expect(
      said({
        operation: "sendCampaign",
        ok: false,
        status: 409,
        answer: { error: "conflict", message: "Campaign has no recipients", asked: { name: "Spring sale" } },
      }),
    ).toBe(
      "<@U0ALICE> tried to start *Spring sale*: the messaging API refused it (Campaign has no recipients)",
    );
    const held = said({ operation: "campaign.hold", answer: { name: "Spring sale", at, reason: "at" } });
    expect(held).toMatch(/^<@U0ALICE> set \*Spring sale\* to start at /);
    expect(held).toMatch(token);
    expect(said({ operation: "campaign.hold.cancel", answer: { name: "Spring sale", at } })).toMatch(
      /^<@U0ALICE> cancelled the start of \*Spring sale\* at <!date\^/,
    );
    expect(
      said({
        operation: "campaign.hold.skipped",
        ok: false,
        answer: { name: "Spring sale", at, reason: "the campaign was cancelled meanwhile" },
      }),
    ).toMatch(
      /^The start of \*Spring sale\* that <@U0ALICE> set for <!date\^.*> was skipped: the campaign was cancelled meanwhile$/,
    );
    expect(
      said({
        operation: "campaign.hold.failed",
        ok: false,
        answer: { name: "Spring sale", at, reason: "the campaign could not be read" },
      }),
    ).toMatch(
      /^The start of \*Spring sale\* that <@U0ALICE> set for <!date\^.*> failed: the campaign could not be read$/,
    );
    expect(
      said({
        operation: "sendMessage",
        command: "campaign 4 test +34600111222",
        answer: { id: 9, asked: { to: "+34600111222", campaign: "Spring sale" } },
      }),
    ).toBe("<@U0ALICE> sent a test of *Spring sale* to +34 600 11 12 22");
    for (const op of [
      "sendCampaign",
      "campaign.hold",
      "campaign.hold.cancel",
      "campaign.hold.skipped",
      "sendMessage",
    ])
      expect(said({ operation: op, answer: { name: "Spring sale", at } })).not.toMatch(
        /\d{4}-\d\d-\d\dT|`|=/,
      );
  });

  it("a conversation given to oneself is taken; a message not sent says to whom and why", () => {
    expect(
      auditSentence(entry("inbox.assign", { chatUserId: 4, assignee: "U0ALICE", customer: "Lucía Romero" })),
    ).toBe("<@U0ALICE> took the conversation with *Lucía Romero*");
    const failed = {
      ...entry(
        "sendMessage",
        {
          error: "validation",
          message: "The 24-hour window is closed",
          asked: { to: "+34600111222", toName: "Lucía Romero" },
        },
        false,
      ),
      status: 422,
      command: "send contact:12 hello",
    } as AuditEntry;
    expect(auditSentence(failed)).toBe(
      "<@U0ALICE> tried to send a message to *Lucía Romero*: the messaging API refused it (The 24-hour window is closed)",
    );
    const unknown = { ...failed, status: undefined, answer: { error: "network" } } as AuditEntry;
    expect(auditSentence(unknown)).toBe(
      "<@U0ALICE> tried to send a message to contact #12: no answer came from the messaging API, so it may or may not have happened",
    );
  });
});
