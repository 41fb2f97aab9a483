// `/sb automation…` (issue 40 §3) on the whole stack: admins only; added with
// the secret shown once and the URL masked in the answer, the list, the audit
// (the typed line too) and the logs; a conversation assigned in an inbox
// reaches the hook through the audit, signed; test, rotate, delete; Retry on a
// hook with a failed delivery.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGNATURE_HEADER, verifySignature } from "../../src/automations/index.ts";
import { blocksToText } from "../../src/blocks/text.ts";
import type { Reply } from "../../src/commands/types.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { InboxStore } from "../../src/store/inbox.ts";
import { eventually } from "../helpers/eventually.ts";
import { automationsEnv, type HookReceiver, startHookReceiver } from "../helpers/hook-receiver.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

const SHELL = { userId: "shell", via: "shell" as const };
const ALICE = { userId: "U0ALICE", via: "slack" as const, channelId: "C0GENERAL" };
const text = (r: Reply) => `${r.text}\n${blocksToText(r.blocks)}`;

describe("automation commands", () => {
  let s: Stack;
  let status = 200;
  let hooks: HookReceiver;
  const secretPath = `/in/${randomBytes(10).toString("hex")}`;
  let url = "";

  beforeAll(async () => {
    hooks = await startHookReceiver(() => status);
    url = `${hooks.base}${secretPath}`;
    s = await startStack({ writers: [ALICE.userId], env: automationsEnv() });
    await s.switchboard.automations.start();
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await hooks?.close();
  });

  it("only an admin adds one: anyone else is told who may", async () => {
    const r = text(await s.core.run(`automation add conversation.assigned ${url}`, ALICE));
    expect(r).toMatch(/may add automations/);
    expect(text(await s.core.run("automations", ALICE))).toMatch(/may see the automations/);
  });

  let secret = "";
  it("added: the secret shown once, the URL masked in the answer and the list", async () => {
    const r = text(await s.core.run(`automation add conversation.assigned ${url}`, SHELL));
    expect(r).toContain("Automation *1* added");
    expect(r).toContain("http://127.0.0.1:");
    expect(r).not.toContain(secretPath);
    secret = /whsec_[A-Za-z0-9_-]+/.exec(r)?.[0] ?? "";
    expect(secret).not.toBe("");
    const list = text(await s.core.run("automations", SHELL));
    expect(list).toMatch(/1\. A conversation is assigned\*? → webhook `?http:\/\/127\.0\.0\.1:\d+\/…/);
    expect(list).not.toContain(secretPath);
    expect(list).not.toContain(secret);
    // Words for what cannot be added.
    expect(text(await s.core.run(`automation add campaign.begun ${url}`, SHELL))).toMatch(
      /There is no event campaign\.begun/,
    );
    expect(text(await s.core.run(`automation add campaign.started ${url} inbox=C0NOPE`, SHELL))).toMatch(
      /Only conversation events can be limited|has no inbox/,
    );
  });

  it("a conversation assigned in an inbox reaches it through the audit, signed", async () => {
    const store = new InboxStore(s.db, s.workspace);
    const now = new Date();
    await store.setInbox("C0INBOX1", "all", "U0", now);
    await store.ensureThread("C0INBOX1", 42, now);
    await store.updateThread("C0INBOX1", 42, { threadTs: "1.000001" });
    expect(text(await s.core.run("inbox assign C0INBOX1 42 me", ALICE))).toMatch(/You have the conversation/);
    await eventually(() => hooks.got.length >= 1);
    const [hit] = hooks.got;
    const event = JSON.parse(hit!.body);
    expect(event).toMatchObject({
      version: 1,
      type: "conversation.assigned",
      workspace: s.workspace,
      data: {
        inbox_channel: "C0INBOX1",
        chat_user_id: "42",
        assignee: ALICE.userId,
        assigned_by: ALICE.userId,
      },
    });
    expect(verifySignature(secret, String(hit!.headers[SIGNATURE_HEADER.toLowerCase()]), hit!.body)).toBe(
      true,
    );
    expect(hit!.body).not.toContain(s.apiKey);
  });

  it("test sends one event now; rotate gives a new secret that signs from then on", async () => {
    const before = hooks.got.length;
    expect(text(await s.core.run("automation test 1", SHELL))).toMatch(/answered HTTP 200/);
    expect(hooks.got).toHaveLength(before + 1);
    expect(JSON.parse(hooks.got.at(-1)!.body)).toMatchObject({ test: true, type: "conversation.assigned" });
    const r = text(await s.core.run("automation rotate 1", SHELL));
    const fresh = /whsec_[A-Za-z0-9_-]+/.exec(r)?.[0] ?? "";
    expect(fresh).not.toBe("");
    expect(fresh).not.toBe(secret);
    await s.core.run("automation test 1", SHELL);
    const last = hooks.got.at(-1)!;
    const header = String(last.headers[SIGNATURE_HEADER.toLowerCase()]);
    expect(verifySignature(fresh, header, last.body)).toBe(true);
    expect(verifySignature(secret, header, last.body)).toBe(false);
  });

  it("a 400: the list shows the failure at once, with Retry", async () => {
    status = 400;
    expect(text(await s.core.run("inbox assign C0INBOX1 42 nobody", ALICE))).toMatch(/Nobody has/);
    expect(text(await s.core.run("inbox assign C0INBOX1 42 me", ALICE))).toMatch(/You have/);
    await eventually(async () => /1 event failed/.test(text(await s.core.run("automations", SHELL))));
    const list = await s.core.run("automations", SHELL);
    expect(text(list)).toMatch(/failed .*HTTP 400/);
    expect(JSON.stringify(list.blocks)).toContain('"value":"automation retry 1"');
    status = 200;
    const n = hooks.got.length;
    expect(text(await s.core.run("automation retry 1", SHELL))).toMatch(/being sent again/);
    await eventually(() => hooks.got.length > n);
  });

  it("the URL is in neither the audit (the typed line included) nor the logs; delete stops it", async () => {
    const rows = await new AuditLog(s.db, s.workspace).list({ limit: 200 });
    const mine = rows.filter((e) => e.operation.startsWith("automation."));
    expect(mine.map((e) => e.operation)).toEqual(
      expect.arrayContaining(["automation.add", "automation.rotate"]),
    );
    const added = mine.find((e) => e.operation === "automation.add")!;
    expect(added.command).toMatch(/^automation add conversation\.assigned http:\/\/127\.0\.0\.1:\d+\/…$/);
    expect(JSON.stringify(rows)).not.toContain(secretPath);
    expect(JSON.stringify(s.logs)).not.toContain(secretPath);
    expect(JSON.stringify(s.logs)).not.toContain(secret);
    expect(text(await s.core.run("automation delete 1", SHELL))).toMatch(/Automation \*1\* deleted/);
    expect(text(await s.core.run("automations", SHELL))).toMatch(/No automation yet/);
  });

  itLeavesBUntouched(() => s);
});
