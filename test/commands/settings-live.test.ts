// Settings changed from Slack or the shell take effect at once, in
// single-workspace mode too (issue 19 §3): the environment gives the first
// values, `settings set` keeps a new one in the store, the workspace's core is
// made again with it, and a restart on the same database keeps it.
import { describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import type { Reply } from "../../src/commands/types.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { auditSentence } from "../../src/slack/features/audit-words.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { useOutOfTheBox } from "./helpers.ts";

const ALICE = { userId: "U0ALICE", via: "slack" as const, channelId: "C0GENERAL" };
const BOB = { userId: "U0BOB", via: "slack" as const, channelId: "C0GENERAL" };
const SHELL = { userId: "shell", via: "shell" as const };
const text = (r: Reply) => blocksToText(r.blocks) || r.text;

const { sb, db, restart } = useOutOfTheBox(ALICE.userId);

describe("settings in single-workspace mode", () => {
  it("start from the environment: alice may make changes, bob may not", async () => {
    expect(text(await sb().core.run("tag add First #112233", ALICE))).toContain("First");
    expect(text(await sb().core.run("tag add Nope #112233", BOB))).not.toContain("created");
    expect(text(await sb().core.run("settings", SHELL))).toContain("set by whoever runs Switchboard");
  });

  it("a change applies at once, without a restart", async () => {
    const saved = text(await sb().core.run(`settings set writers=${BOB.userId}`, SHELL));
    expect(saved).not.toMatch(/nothing was saved/i);
    expect(text(await sb().core.run("tag add Bobs #112233", BOB))).toContain("Bobs");
    expect(text(await sb().core.run("tag add Alices #112233", ALICE))).not.toContain("created");
    // Kept in the audit trail in words, as the Home tab and the audit channel say it.
    const entry = (await new AuditLog(db(), ENV_WORKSPACE).list()).find(
      (e) => e.operation === "workspace.settings",
    );
    expect(entry).toBeDefined();
    expect(auditSentence(entry!)).toBe("The shell changed the settings: Who may make changes");
    // The Slack app's requests see the same core.
    const parts = await sb().workspaces({}).resolve({});
    expect(parts.core).toBe(sb().core);
  });

  it("a restart on the same database keeps the change", async () => {
    await restart();
    expect(text(await sb().core.run("tag add Again #112233", BOB))).toContain("Again");
    expect(text(await sb().core.run("settings", SHELL))).toMatch(/changed|instead of SWITCHBOARD_WRITERS/i);
  });
});
