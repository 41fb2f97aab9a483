// An empty value wipes nothing by accident (issue 39 §1): `name=` with
// nothing after it is refused in words and writes nothing; a field is
// cleared only when asked plainly (`name=""`), and the answer says so.
// Every edit command, through the core, the real client and the sandbox.
import { describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import type { Reply } from "../../src/commands/types.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { all, SHELL, useHarness } from "./helpers.ts";

const h = useHarness();
const text = (r: Reply) => blocksToText(r.blocks) || r.text;
const writes = () => h().forwarder.requests.filter((r) => !r.startsWith("GET ")).length;

describe("an empty value", () => {
  // `clears`: the answer offers to clear the field (`name=""`); what cannot be empty is not offered.
  it.each([
    { line: "user edit 1 name=", clears: true },
    { line: "user edit 1 name= Bruno", clears: true },
    { line: "contact edit 1 first=", clears: true },
    { line: "contact edit 1 loyalty_tier=", clears: true },
    { line: "group edit 1 description=", clears: true },
    { line: "tag edit 1 description=", clears: true },
    { line: "settings set quiet=", clears: true },
    { line: "field edit 1 label=", clears: false },
    { line: "group edit 1 name=", clears: false },
    { line: "contact edit 1 email=", clears: false },
  ])("`$line` is refused in words and writes nothing", async ({ line, clears }) => {
    const key = /(\w+)=(?:\s|$)/.exec(line)![1];
    const before = writes();
    const user = await h().client.getChatUser(1);
    const r = await h().run(line, line.startsWith("settings") ? SHELL : undefined);
    const said = text(r);
    expect(said).toContain(`\`${key}=\` has no value`);
    if (clears) expect(said).toContain(`type \`${key}=""\` to clear it`);
    else expect(said).not.toContain("clear");
    expect(said).not.toMatch(/changed\b(?!\.)|saved/i);
    expect(writes()).toBe(before);
    expect(await h().client.getChatUser(1)).toEqual(user);
  });

  it("in other commands is refused too, without talk of clearing", async () => {
    const r = await h().run("contacts page=");
    expect(text(r)).toContain("`page=` has no value");
    expect(text(r)).not.toContain("clear");
  });

  it('`user edit 1 name=""` clears the name, and says it was cleared', async () => {
    await h().run("user edit 3 name=Carla");
    const r = await h().run('user edit 3 name=""');
    expect(all(r)).toMatch(/name cleared/);
    expect(all(r)).not.toMatch(/name changed/);
    const u = await h().client.getChatUser(3);
    expect(JSON.stringify(u)).not.toContain("Carla");
  });

  it('`contact edit <id> first=""` clears the first name; email="" is refused in words', async () => {
    const add = await h().run("contact add +1 (415) 555-7712 first=Iris last=Vega email=iris@example.com");
    const id = Number(/Contact #(\d+)/.exec(add.text)![1]);
    const r = await h().run(`contact edit ${id} first=""`);
    expect(all(r)).toMatch(/first name cleared/);
    expect((await h().client.getContact(id)).first_name ?? "").toBe("");
    const before = writes();
    const email = await h().run(`contact edit ${id} email=""`);
    expect(text(email)).toMatch(/email[\s\S]*cannot be cleared/i);
    expect(writes()).toBe(before);
    expect((await h().client.getContact(id)).email).toBe("iris@example.com");
  });

  it('`settings set quiet=""` clears quiet hours as `none` does', async () => {
    await h().run("settings set tz=Europe/Madrid quiet=21:00-08:00", SHELL);
    const r = await h().run('settings set quiet=""', SHELL);
    expect(text(r)).toMatch(/Saved: Quiet hours/);
  });
});

itLeavesBUntouched(h);
