// Settings are the workspace's (issue 38 §4): in many-workspace mode the
// deployment's environment gives no workspace its settings. A workspace that
// never set its country reads a number without a + code as no country (it is
// refused, saying so), even where the deployment runs with DEFAULT_COUNTRY;
// one that set its own uses its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let s: WorkspacesStack;

beforeAll(async () => {
  s = await startWorkspacesStack({
    teams: 2,
    connect: "key",
    // The deployment's values, which in many-workspace mode are no workspace's.
    env: { DEFAULT_COUNTRY: "ES" },
  });
  expect(await s.workspaces[0]!.command("settings set country=FR")).toMatch(/Saved: /);
}, 120_000);

afterAll(async () => {
  await s?.close();
});

describe("a workspace's settings, never the deployment's config, in many-workspace mode", () => {
  it("a number without a + code is read in the workspace's own country, or refused when it set none", async () => {
    const [a, b] = [s.workspaces[0]!, s.workspaces[1]!];
    // A's country is its own (FR): the contact lands in its organization as a French number.
    await a.req.command("contact add 612345678 first=Ana", { user: a.user });
    await eventually(
      async () => (await a.api.listContacts()).items.some((c) => c.phone === "+33612345678"),
      "A's contact, read in France",
    );
    // B never set a country, and DEFAULT_COUNTRY is the deployment's, not B's: refused, not Spain's +34….
    const sent = await b.req.command("contact add 612345679 first=Bo", { user: b.user });
    const outcome = await eventually(async () => {
      if ((await b.api.listContacts()).items.some((c) => c.phone === "+34612345679"))
        return "created as a Spanish number";
      const answer = s.fake.responsesTo(sent.responseUrl!)[0];
      return answer && JSON.stringify(answer.body);
    }, "B's answer or contact");
    expect(outcome).toMatch(/country code/);
  });
});
