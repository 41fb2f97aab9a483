// Every example `/sb help` shows runs against the seeded sandbox without an
// error (issue 9 §3): what a new user copies from the help works. They run in
// the help's order, the ones that delete, remove, cancel or send last (as a user
// trying them would), each confirmation confirmed.
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Automations } from "../../src/automations/index.ts";
import { ALL_COMMANDS } from "../../src/commands/defs/index.ts";
import type { Reply } from "../../src/commands/types.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { AutomationStore } from "../../src/store/automations.ts";
import { Installations } from "../../src/store/installations.ts";
import { createWorkspaceAdmin } from "../../src/workspaces/admin.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { expectSlackValid, SHELL, SLACK_USER, useHarness } from "./helpers.ts";

const h = useHarness();

// A campaign's send is as final as a delete: tried last, so the examples on that draft (Send at…) still find it one.
const DESTRUCTIVE = /\b(delete|remove|cancel|opt-out|send)\b/;
/** An answer that says something went wrong: the error replies' mark, or their first words. */
const failed = (r: Reply) =>
  JSON.stringify(r.blocks[0] ?? {}).includes(":warning:") ||
  /^(No such|There is no|The messaging API|Nothing (was )?changed|Could not|You may not)/.test(r.text);

describe("the examples of /sb help", () => {
  it("each runs against the seeded sandbox without an error", async () => {
    const { core, db, forwarder } = h();
    // The workspace's own commands need its admin (src/workspaces/admin.ts): here the example user installed it.
    const admin = createWorkspaceAdmin({
      db,
      installations: await Installations.open(db, new Keyring(Buffer.alloc(32, 7).fill(9, 16))),
      workspace: "T0EXAMPLES",
      apiUrl: `${forwarder.url}/v1`,
      timeoutMs: 5000,
      mode: "single",
      installerUserId: SLACK_USER.userId,
    });
    // The stack's own core has the environment's admin (who may change settings: Slack's admins); the
    // example user here is the installer, so the workspace commands run with this one.
    // Automations' examples send to a receiver of this test (loopback: allowed here), not to example.com.
    const receiver = createServer((_req, res) => res.end()).listen(0, "127.0.0.1");
    await once(receiver, "listening");
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/switchboard`;
    const automations = new Automations(
      { keyring: new Keyring(randomBytes(32)), rules: { allowPrivate: true } },
      new AutomationStore(db, "T0EXAMPLES"),
    );
    const withAdmin = h().newCore({ admin, automations });
    const visible = ALL_COMMANDS.filter((c) => !c.hidden);
    const ordered = [
      ...visible.filter((c) => !DESTRUCTIVE.test(c.id)),
      ...visible.filter((c) => DESTRUCTIVE.test(c.id)),
    ];
    // The import example names a file in the working directory: made here, next to nothing else.
    const dir = mkdtempSync(join(tmpdir(), "sb-example-"));
    writeFileSync(join(dir, "contacts.csv"), "phone,first_name\n+14155550777,Example\n");
    // `scheduled edit 1`, `scheduled cancel 1`: they act on a message sent later, as the user would have set one.
    const later = await core.run(
      `send +14155550123 Hola at=${new Date(Date.now() + 3_600_000).toISOString()}`,
      SLACK_USER,
    );
    await core.confirm(later.confirmation!.id, SLACK_USER);
    const problems: string[] = [];
    for (const c of ordered) {
      const shellOnly = c.id.startsWith("import");
      const line = shellOnly
        ? c.example.replace("./contacts.csv", join(dir, "contacts.csv"))
        : c.example.replace("https://example.com/switchboard", hookUrl);
      const actor = shellOnly ? SHELL : SLACK_USER;
      const runner = c.topic === "workspace" ? withAdmin : core;
      let r: Reply = runner === core ? await h().run(line, actor) : await runner.run(line, actor);
      expectSlackValid(r);
      if (r.confirmation) r = await runner.confirm(r.confirmation.id, actor);
      if (failed(r)) problems.push(`${c.example}\n  → ${r.text.split("\n").slice(0, 3).join(" / ")}`);
    }
    receiver.close();
    expect(problems).toEqual([]);
  });
});

itLeavesBUntouched(h);
