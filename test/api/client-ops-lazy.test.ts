// A messaging client makes each operation's function at its first read (src/api/client.ts, issue 38 §7): 41
// closures made with every client were ~3 KiB of each workspace's runtime. Each client's functions are its own,
// with its own key, against the real sandbox over HTTP; the same function at each read, called detached too.
import { describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { withSandbox } from "../helpers/sandbox.ts";

const sandbox = withSandbox();

describe("a messaging client's operations, made on first read", () => {
  it("keeps none of its own until one is read, then that one, the same at each read", () => {
    const client = new MessagingClient({ baseUrl: sandbox().url, apiKey: sandbox().apiKey });
    for (const fn of ["getMe", "listTags", "createTag", "sendMessage", "listContacts"])
      expect(Object.hasOwn(client, fn)).toBe(false);
    expect(client.listTags).toBe(client.listTags);
    expect(typeof client.importContacts).toBe("function");
  });

  it("two organizations' clients each call with their own key, even through a function read earlier", async () => {
    const a = await sandbox().createOrganization({ name: "Lazy A" });
    const b = await sandbox().createOrganization({ name: "Lazy B" });
    const clientA = new MessagingClient({ baseUrl: sandbox().url, apiKey: a.apiKey });
    const clientB = new MessagingClient({ baseUrl: sandbox().url, apiKey: b.apiKey });
    expect(clientA.listTags).not.toBe(clientB.listTags);
    const createAsA = clientA.createTag;
    const listAsB = clientB.listTags;
    await createAsA({ name: "only-a", color: "#112233" });
    const seenByB = await listAsB();
    const seenByA = await clientA.listTags();
    expect(seenByA.items.map((t) => t.name)).toContain("only-a");
    expect(seenByB.items.map((t) => t.name)).not.toContain("only-a");
    await clientA.close();
    await clientB.close();
  });
});
