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
});
