// An audit channel post says how the change was made: the line when someone
// typed it, else in words (a form, a held start at its time, a workflow step,
// an inbox thread), never a label Switchboard wrote shown as if typed; a
// connect, disconnect or settings change by where it was made.
import { describe, expect, it } from "vitest";
import { auditMessage } from "../../src/slack/io/bridge.ts";
import type { AuditEntry } from "../../src/store/audit.ts";

const entry = (command: string, operation: string, answer: unknown = {}): AuditEntry => ({
  at: new Date("2026-11-27T21:00:00Z"),
  actor: "U0ALICE",
  via: "slack",
  channel: "C0GENERAL",
  command,
  operation,
  ok: true,
  answer,
});
const context = (e: AuditEntry) => JSON.stringify(auditMessage(e).blocks[1]);

describe("an audit channel post's context", () => {
  it("shows a typed line as typed", () => {
    expect(context(entry('tag add vip #FF0000 "Very important"', "createTag"))).toContain(
      'Typed in <#C0GENERAL>: `tag add vip #FF0000 \\"Very important\\"`',
    );
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
