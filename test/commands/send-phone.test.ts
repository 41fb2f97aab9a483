// `/sb send` with a phone split by spaces: read as people type it (greedy:
// the longest run of leading number-like words that is a number), and a
// refusal that quotes what was typed and says why it is not a phone. The
// answer names a chat user by name, never "chat user #1".
import { describe, expect, it } from "vitest";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { useHarness } from "./helpers.ts";

const h = useHarness();

/** The chat user writes in (the sandbox's control), so free text is inside the 24-hour window. */
async function writesIn(chatUserId: number, text: string) {
  const sb = h().sandbox;
  const res = await fetch(`${sb.controlUrl}/chat-users/${chatUserId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": sb.apiKey },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(201);
}

const messageId = (text: string) => Number(/Message #(\d+)/.exec(text)?.[1]);

describe("send to a phone split by spaces", () => {
  it("`send +34 612 345 678 hola` sends “hola” to +34612345678", async () => {
    // A template opens the conversation (and makes the chat user); the customer answers.
    const opened = await h().run(
      "send +34 612 345 678 template=order_update lang=en first_name=Ana order_id=9",
    );
    expect(opened.text).toMatch(/Sent to \*\+34612345678\*/);
    const first = await h().client.getMessage(messageId(opened.text));
    await writesIn(Number(first.chatUserId), "¿Dónde está mi pedido?");

    const r = await h().run("send +34 612 345 678 hola");
    expect(r.text).toMatch(/^:envelope: Sent to \*\+34612345678\*: “hola”/);
    const sent = await h().client.getMessage(messageId(r.text));
    expect(sent).toMatchObject({ type: "text", text: "hola", chatUserId: first.chatUserId });
  });

  it.each([
    [
      "send +34 12 hola",
      /`\+34 12` is too short for a phone number in Spain: numbers there have 9 digits after \+34/,
    ],
    ["send +999 12 hola", /`\+999 12` does not start with a country's calling code/],
    ["send +1 415 555 hola", /`\+1 415 555` is too short for a phone number in the United States/],
    [
      "send 12 hola",
      /`12` is too short for a phone number in the United States: numbers there have 10 digits/,
    ],
    ["send hello there", /`hello` is not a recipient: give a phone number with its country code/],
  ])(
    "%s: the answer quotes what was typed and says why it is not a phone; nothing is sent",
    async (line, said) => {
      const before = h().forwarder.requests.length;
      const r = await h().run(line);
      expect(r.text).toMatch(said);
      expect(r.text).not.toMatch(/"\+34" is not a recipient/);
      expect(
        h()
          .forwarder.requests.slice(before)
          .filter((q) => q.startsWith("POST")),
      ).toEqual([]);
    },
  );
});

describe("the answer to a message sent to a chat user", () => {
  it("names the chat user in its context line, not by id", async () => {
    const users = (await h().client.listChatUsers({ limit: 100 })).items;
    const named = users.find((u) => u.type === "phonechat" && typeof u.name === "string" && u.name.trim());
    expect(named).toBeDefined();
    await writesIn(Number(named!.id), "Hello?");
    const r = await h().run(`send user:${named!.id} Thanks for writing`);
    expect(r.text).toMatch(/Sent to \*[^*]+\*: “Thanks for writing”/);
    const contextLine = r.blocks
      .filter((b) => b.type === "context")
      .flatMap((b) => ("elements" in b ? b.elements.map((e) => ("text" in e ? e.text : "")) : []))
      .join("\n");
    expect(contextLine).toMatch(/^Message #\d+ · text · chat user /);
    expect(contextLine).toContain(`chat user ${String(named!.name).trim()}`);
    expect(contextLine).not.toMatch(/chat user #/);
  });
});

itLeavesBUntouched(h);
