// Everyday answers read right (issue 9): each case failed before its fix.
import { describe, expect, it } from "vitest";
import { pagePosition, showValue } from "../../src/commands/render.ts";
import type { Reply } from "../../src/commands/types.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { all, SHELL, SLACK_USER, useHarness } from "./helpers.ts";

const h = useHarness();

describe("secrets are masked by what they are, not by a member's name", () => {
  it("shows a custom field's key as typed", async () => {
    const key = `loyalty_tier_${Date.now() % 100000}`;
    const r = await h().run(`field add ${key} Loyalty tier`);
    expect(all(r)).toContain(key);
    expect(all(r)).not.toMatch(/…tier/);
  });

  it("still masks tokens and keys, whatever member holds them", () => {
    expect(showValue("key", "loyalty_tier")).toBe("loyalty_tier");
    expect(showValue("apiKey", "abc")).not.toContain("abc");
    expect(showValue("note", "xoxb-1234-5678-abcdefSECRET")).not.toContain("abcdefSECRET");
    expect(showValue("value", "Zq8LmN2pR5tV7wX9yB3cD4eF")).not.toContain("Zq8LmN2pR5tV7wX9yB3cD4eF");
    expect(showValue("website", "https://example.com/Path/To/Page2024abc")).toContain("example.com");
  });
});

describe("counts read as English", () => {
  it("says 1 contact, 2 contacts, and where the end is when a page is past it", () => {
    const page = (p: number, total: number) => ({ items: [], page: p, limit: 20, total });
    expect(pagePosition(page(1, 1), "contact", "contacts")).toBe("Page 1 of 1 · 1 contact");
    expect(pagePosition(page(1, 1234), "chat user", "chat users")).toBe("Page 1 of 62 · 1,234 chat users");
    expect(pagePosition(page(2, 5), "contact", "contacts")).toBe(
      "Page 2 is past the end: 5 contacts on 1 page",
    );
    expect(pagePosition(page(1, 1), "saved reply", "saved replies")).toBe("Page 1 of 1 · 1 saved reply");
  });

  it("answers a page past the end of a real list in those words", async () => {
    const r = await h().run("contacts page=50");
    expect(all(r)).toMatch(/Page 50 is past the end: \d+ contacts? on \d+ pages?/);
    expect(all(r)).not.toMatch(/Page 50 of/);
  });

  it("past the end, offers the last page, never the empty one before (issue 39 §1)", async () => {
    const total = (await h().client.listContacts({ limit: 1 })).total ?? 0;
    const last = Math.ceil(total / 20);
    const buttons = (r: Reply) =>
      (r.blocks as Array<{ type: string; elements?: Array<{ text: { text: string }; value: string }> }>)
        .filter((b) => b.type === "actions")
        .flatMap((b) => b.elements ?? [])
        .map((e) => `${e.text.text}: ${e.value}`);
    const r = await h().run("contacts page=9");
    expect(buttons(r)).toEqual([`‹ Last page: contacts page=${last}`]);
    // On a page that exists, Previous as before.
    expect(buttons(await h().run(`contacts page=${last}`))).toContain(
      `‹ Previous: contacts page=${last - 1}`,
    );
  });
});

describe("group members: what changed, not what was asked", () => {
  it("says nothing was removed for a contact that was not a member, and counts partial changes", async () => {
    const { core } = h();
    const name = `Everyday ${Date.now() % 100000}`;
    const add = await h().run(`group add ${name}`);
    const id = Number(/Group #(\d+)/.exec(add.text)?.[1]);
    // Issue 22 §3: the people and the group by name, the numbers in the quiet line.
    const who = async (c: number) => {
      const r = await h().client.getContact(c);
      return `${r.first_name} ${r.last_name}`.trim();
    };
    const [ana, two, three, four] = await Promise.all([1, 2, 3, 4].map(who));
    const added = await h().run(`group ${id} add 1 2`);
    expect(added.text).toContain(`Added ${ana} and ${two} to *${name}*`);
    expect(added.text).toContain(`(Group #${id} · contacts #1, #2)`);
    const again = await h().run(`group ${id} add 2 3`);
    expect(again.text).toContain(
      `Added 1 contact to *${name}* (the other 1 contact was already a member): ${two} and ${three}`,
    );

    const ask = await h().run(`group ${id} remove 4`);
    expect(ask.text).toMatch(/Remove 1 contact from group/);
    const none = await core.confirm(ask.confirmation?.id ?? "", SLACK_USER);
    expect(none.text).toContain(`Nothing changed in *${name}*: ${four} was not a member`);
    expect(none.text).not.toMatch(/Removed 1 contact/);

    const ask2 = await h().run(`group ${id} remove 1 4`);
    const some = await core.confirm(ask2.confirmation?.id ?? "", SLACK_USER);
    expect(some.text).toContain(`Removed 1 contact from *${name}* (the other 1 contact was not a member)`);
    const one = await core.confirm(
      (await h().run(`group ${id} remove 2`)).confirmation?.id ?? "",
      SLACK_USER,
    );
    expect(one.text).toContain(`Removed ${two} from *${name}*`);
  });
});

describe("what can be known is checked before asking", () => {
  it("refuses to offer deleting an approved template, with the rule, and asks nothing", async () => {
    const { client } = h();
    const approved = (await client.listTemplates({ status: "approved" })).items[0];
    expect(approved?.id).toBeTypeOf("number");
    const r = await h().run(`template delete ${approved?.id}`);
    expect(r.confirmation).toBeUndefined();
    expect(r.text).toMatch(
      /is approved, and the messaging API deletes only pending, rejected, disabled templates/,
    );
    expect((await client.getTemplate(approved?.id as number)).status).toBe("approved");
  });
});

describe("people's words, not the API's", () => {
  it("an update with nothing to change says so without '(body)' or 'member'", async () => {
    const r = await h().run("tag edit 1");
    expect(all(r)).not.toMatch(/\(body\)|member to change/);
  });

  it("an audience-less campaign names groups and contacts, not groupIds", async () => {
    const r = await h().run("campaign add Nobody template=1 contacts=");
    expect(all(r)).not.toMatch(/groupIds|contactIds/);
  });
});

describe("sentences read right", () => {
  it("says no channel has a schedule, not 'No report schedules in every channel'", async () => {
    const r = await h().run("reports all");
    expect(r.text).toMatch(/^No channel has a report schedule\. Create one/);
    expect(r.text).not.toMatch(/in every channel/);
  });

  it("in the shell, which has no channel, says to name the Slack channel, and its example names one", async () => {
    const list = await h().run("reports", SHELL);
    expect(list.text).toMatch(/Create one: `\/sb report running every weekday at 09:00 C0123ABCD`/);
    const r = await h().run("report running every weekday at 09:00", SHELL);
    expect(r.text).toMatch(
      /is required in the shell, which has no channel of its own: add the Slack channel's id/,
    );
    expect((await h().run("report running every weekday at 09:00", SLACK_USER)).text).not.toMatch(
      /in the shell/,
    );
  });
});

describe("an unknown record or command, said once", () => {
  it("a missing record is named once, without the API repeating it", async () => {
    const r = await h().run("contact 999");
    expect(r.text).toMatch(/No such contact #999 \(or it was deleted\)\./);
    expect(r.text).not.toMatch(/The API said|was not found/);
  });

  it("a command that is nothing like any other suggests nothing unrelated", async () => {
    const r = await h().run("foo");
    expect(r.text).toMatch(/There is no command `\/sb foo`\./);
    expect(r.text).not.toMatch(/Did you mean|inbox on/);
    expect((await h().run("tgas")).text).toMatch(/Did you mean `\/sb tags`\?/);
  });
});

itLeavesBUntouched(h);
