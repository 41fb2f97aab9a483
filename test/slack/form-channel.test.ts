// A form's outcome goes only to a channel of the request's workspace (issue 27
// §5): the channel the form was opened from, kept with its view when Slack
// opened it. A submission whose private_metadata names another channel (a
// forged one: another workspace's) gets its outcome by DM, and nothing is
// posted in that channel.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

let s: WorkspacesStack;

beforeAll(async () => {
  s = await startWorkspacesStack({ teams: 2, connect: "key" });
  // A channel of the second workspace, where its bot is.
  s.fake.addChannel({ id: "C0TWS2DESK", name: "desk-2", is_member: true, team: "TWS2" });
}, 90_000);

afterAll(async () => {
  await s?.close();
});

/** The import form of the first workspace, opened from #general, submitted with a file; the preview's message. */
async function importThroughForm(name: string, forge?: string) {
  const ws = s.workspaces[0]!;
  const v = await ws.open("import");
  if (forge) {
    // The view as Slack would send it back, its metadata rewritten to name another workspace's channel.
    const meta = JSON.parse(String((v.view as Json).private_metadata || "{}"));
    (v.view as Json).private_metadata = JSON.stringify({ ...meta, ch: forge });
  }
  const file = s.fake.addFile({
    name,
    content: Buffer.from("phone,first_name\n+14155557411,Ivy\n"),
    user: ws.user.id,
    mimetype: "text/csv",
  });
  const answer = await ws.submit(v.id, { file: [file.id] });
  expect(answer.response_action === "errors" ? answer.errors : undefined).toBeUndefined();
  return s.fake.waitFor(
    () => s.fake.messages.find((m) => m.text?.startsWith(`Import preview of ${name}`)),
    30_000,
    `the preview of ${name}`,
  );
}

describe("a form's outcome", () => {
  it("goes to the channel the form was opened from", async () => {
    const preview = await importThroughForm("opened-here.csv");
    expect(preview.channel).toBe(s.workspaces[0]!.general);
  });

  it("goes to the person by DM when the form's metadata names a channel of another workspace", async () => {
    const ws = s.workspaces[0]!;
    const preview = await importThroughForm("forged.csv", "C0TWS2DESK");
    expect(preview.channel).toBe(ws.user.id);
    expect(s.fake.messages.filter((m) => m.channel === "C0TWS2DESK")).toEqual([]);
    expect(s.logs.some((l) => String(l.msg).includes("a form named a channel it was not opened from"))).toBe(
      true,
    );
  });
});
