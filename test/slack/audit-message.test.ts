// An audit channel post says how the change was made: the line when someone
// typed it (the entry's `how`), else in words (a button, the approval message,
// a form, a held start at its time, a workflow step, an inbox thread), never a
// label Switchboard wrote, nor a button's line, shown as if typed; a connect,
// disconnect or settings change by where it was made; no DM's id, no ISO time.
import { describe, expect, it } from "vitest";
import { auditMessage } from "../../src/slack/io/bridge.ts";
import type { AuditEntry } from "../../src/store/audit.ts";

const entry = (
  command: string,
  operation: string,
  answer: unknown = {},
  how?: AuditEntry["how"],
): AuditEntry => ({
  at: new Date("2026-11-27T21:00:00Z"),
  actor: "U0ALICE",
  via: "slack",
  ...(how ? { how } : {}),
  channel: "C0GENERAL",
  command,
  operation,
  ok: true,
  answer,
});
const context = (e: AuditEntry) => JSON.stringify(auditMessage(e).blocks[1]);

describe("an audit channel post's context", () => {
  it("shows a typed line as typed", () => {
    expect(context(entry('tag add vip #FF0000 "Very important"', "createTag", {}, "typed"))).toContain(
      'Typed in <#C0GENERAL>: `tag add vip #FF0000 \\"Very important\\"`',
    );
  });

  it("never shows the line of a click or a form as typed, nor a DM's id, nor an ISO time", () => {
    const cases: Array<[AuditEntry, string]> = [
      [entry("inbox resolve C0DESK 1", "inbox.resolve", {}, "button"), "With a button in <#C0GENERAL>"],
      [entry("campaign 4 send", "sendCampaign", {}, "approval"), "From the approval message"],
      [entry("campaign 7 send at=2026-11-29T07:00:00.000Z", "campaign.hold", {}, "form"), "With a form"],
      [entry("import (upload 7f3c2a10)", "importContacts", {}), ""],
    ];
    for (const [e, words] of cases) {
      const c = context(e);
      expect(c, e.command).toContain(words);
      expect(c, e.command).not.toMatch(/Typed|inbox resolve|campaign \d|import|\d{4}-\d\d-\d\dT/);
    }
    const dm = context({ ...entry("campaign 4 send", "sendCampaign", {}, "typed"), channel: "U0ALICE" });
    expect(dm).toContain("Typed: `campaign 4 send`");
    expect(dm).not.toContain("U0ALICE");
  });

  it("says a form, a held start, a workflow step or an inbox thread in words, not as typed", () => {
    const cases: Array<[AuditEntry, string]> = [
      [entry('reply add (form) "Order shipped"', "reply.add", { name: "Order shipped" }), "With a form"],
      [entry('campaign new (form) "Spring"', "campaign.hold", { name: "Spring" }), "With a form"],
      [entry("campaign 7 send (held start)", "campaign.hold.refused"), "At the start time that was set"],
      [
        entry("workflow step send_message (workflow run Wf1, step run Fx1)", "sendMessage"),
        "By a workflow step",
      ],
      [entry("inbox reply user:42", "sendMessage"), "From an inbox thread"],
    ];
    for (const [e, words] of cases) {
      expect(context(e), e.command).toContain(words);
      expect(context(e), e.command).not.toContain("Typed");
      expect(context(e), e.command).not.toContain("(form)");
    }
  });

  it("names where a connect, disconnect or settings change was made, not a line nobody typed", () => {
    const c = context(entry("settings set", "workspace.settings", { changed: ["Country"] }));
    expect(c).toContain("In <#C0GENERAL> · <!date^");
    expect(c).not.toContain("Typed");
    expect(c).not.toContain("settings set");
    const { channel: _, ...nowhere } = entry("connect", "workspace.connect", { organization: "Acme" });
    expect(context(nowhere as AuditEntry)).toMatch(/"text":"<!date\^/);
  });
});
