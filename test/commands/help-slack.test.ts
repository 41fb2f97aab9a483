// `/sb help` in Slack (issue 39 §2): a short list by topic, no shell advice
// anywhere in Slack's help ("in the shell, use …"), the forms as buttons shown
// only to those who may use them; the shell's help keeps its own text.
import { describe, expect, it } from "vitest";
import type { Actor, Reply } from "../../src/commands/types.ts";
import { useStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

const WRITER: Actor = { userId: "U0WRITER", userName: "writer", channelId: "C0GENERAL", via: "slack" };
const READER: Actor = { userId: "U0READER", userName: "reader", channelId: "C0GENERAL", via: "slack" };
const SHELL: Actor = { userId: "shell", via: "shell" };

const stack = useStack({ writers: [WRITER.userId] });
const everything = (r: Reply) => `${r.text}\n${JSON.stringify(r.blocks)}`;
const buttons = (r: Reply) =>
  (r.blocks ?? [])
    .flatMap((b) => (b as { elements?: Array<{ type: string; value?: string }> }).elements ?? [])
    .filter((e) => e.type === "button")
    .map((e) => e.value);

describe("help in Slack", () => {
  it("is a short list by topic with the forms as buttons for a writer", async () => {
    const r = await stack().core.run("help", WRITER);
    const text = everything(r);
    for (const topic of ["campaigns", "messages", "contacts", "templates", "reports", "inbox"])
      expect(text).toContain(`/sb help ${topic}`);
    expect(text).not.toMatch(/shell/i);
    expect(buttons(r)).toEqual(
      expect.arrayContaining(["campaign new", "send", "import", "template new", "help all"]),
    );
    // A short list: a header, the topics, the forms and All commands.
    expect((r.blocks ?? []).length).toBeLessThanOrEqual(5);
  });

  it("shows no form to someone who may not write, only All commands", async () => {
    const r = await stack().core.run("help", READER);
    expect(buttons(r)).toEqual(["help all"]);
    expect(everything(r)).toContain("/sb help campaigns");
  });

  it("gives no shell advice in any topic's or command's help", async () => {
    const { core } = stack();
    const lines = [
      "help all",
      ...["campaigns", "contacts", "templates", "messages", "inbox", "reports", "workspace"].map(
        (t) => `help ${t}`,
      ),
      "help campaign new",
      "help template new",
      "help import",
    ];
    for (const line of lines) {
      const text = everything(await core.run(line, WRITER));
      expect(text, line).not.toMatch(/\bshell\b/i);
      expect(text, line).not.toMatch(/\(Slack\)/);
    }
    const imp = everything(await core.run("help import", WRITER));
    expect(imp).toContain("upload form");
    expect(imp).not.toContain("./contacts.csv");
  });

  it("the shell keeps its own help", async () => {
    const { core } = stack();
    expect(everything(await core.run("help", SHELL))).toContain("What most people do first");
    expect(everything(await core.run("help campaign new", SHELL))).toContain(
      "in the shell, use `campaign add`",
    );
    expect(everything(await core.run("help import", SHELL))).toContain("./contacts.csv");
  });
});

itLeavesBUntouched(stack);
