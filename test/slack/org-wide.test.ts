// Org-wide installs (issue 27 §5), end to end through Bolt: one org-wide
// install reaching two workspaces of an Enterprise Grid org. A workspace's
// own admin, who did not install the app, sees the Home tab before any
// connection exists, connects that workspace with `/sb connect key=…`, and
// changes its settings; a member who is no admin may not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SlackRequests } from "../fakes/slack-requests.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let s: WorkspacesStack;
let two: SlackRequests;
const ADA = { id: "U0TWOADA", name: "ada" };
const MEMBER = { id: "U0TWOMEL", name: "mel" };

beforeAll(async () => {
  s = await startWorkspacesStack({
    teams: [
      {
        teamId: "TORG1",
        teamName: "Org One",
        enterpriseId: "EGRID",
        enterpriseName: "Grid Co",
        isEnterpriseInstall: true,
        orgTeams: ["TORG2"],
      },
    ],
    connect: "none",
  });
  // People of the org's second workspace.
  s.fake.addUser({ ...ADA, is_admin: true, team: "TORG2" });
  s.fake.addUser({ ...MEMBER, team: "TORG2" });
  two = s.requests.asTeam("TORG2");
}, 90_000);

afterAll(async () => {
  await s?.close();
});

/** `/sb <text>` from the org's second workspace; its first answer, as JSON text. */
async function command(text: string, user: { id: string; name: string }): Promise<string> {
  const sent = await two.command(text, { user });
  expect(sent.status).toBe(200);
  return JSON.stringify((await s.fake.waitForResponse(sent.responseUrl!, 1, 20_000)).body);
}

describe("an org-wide install of two workspaces", () => {
  it("a workspace's own admin sees the Home tab, connects it and changes its settings before any connection exists", async () => {
    const ws = s.workspaces[0]!;
    // The installer's workspace is not connected either: nothing is, yet.
    expect(await s.sb.installations.connection("TORG2")).toBeUndefined();

    // The Home tab of the second workspace, before any connection: says how to connect.
    const before = s.fake.callsOf("views.publish").length;
    const opened = await two.event({ type: "app_home_opened", user: ADA.id, tab: "home", channel: "D0ADA" });
    expect(opened.status).toBe(200);
    const home = await s.fake.waitFor(
      () =>
        s.fake
          .callsOf("views.publish")
          .slice(before)
          .find((c) => c.args.user_id === ADA.id),
      20_000,
      "the Home tab of the second workspace",
    );
    expect(home.response.ok).toBe(true);
    expect(JSON.stringify(home.args)).toMatch(/connect/i);
    expect(JSON.stringify(home.args)).not.toMatch(/Something went wrong/);

    // A member who is no admin may not connect it.
    const refused = await command(`connect key=${ws.org.apiKey}`, MEMBER);
    expect(refused).not.toMatch(/Connected to|Something went wrong/);
    expect(refused).toMatch(/a workspace admin or owner/);
    expect(await s.sb.installations.connection("TORG2")).toBeUndefined();

    // Its admin (not the installer) connects it.
    const connected = await command(`connect key=${ws.org.apiKey}`, ADA);
    expect(connected).toContain("Connected to");
    expect((await s.sb.installations.connection("TORG2"))?.enterpriseId).toBe("EGRID");
    // The other workspace of the org is still not connected.
    expect(await s.sb.installations.connection("TORG1")).toBeUndefined();

    // And changes its settings.
    const saved = await command("settings set tz=Europe/Paris", ADA);
    expect(saved).toMatch(/Europe\/Paris/);
    expect(saved).not.toMatch(/Something went wrong|may not/);
    // The member may not.
    expect(await command("settings set tz=Asia/Tokyo", MEMBER)).toMatch(/a workspace admin or owner/);

    // Its commands now run against its own organization.
    expect(await command("tags", ADA)).not.toMatch(/not connected|Something went wrong/);
  });
});
