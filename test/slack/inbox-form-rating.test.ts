// The inbox's form carries the rating after Resolve (issue 29 §4: "and in the
// inbox's form"): shown as set, and read back into the line the form stands for.
import { describe, expect, it } from "vitest";
import { inboxLine, inboxModal } from "../../src/slack/forms/inbox.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

const data = {
  channel: "C0SUPPORT",
  current: {
    needHuman: false,
    types: [],
    replies: "send" as const,
    firstSecs: 900,
    nextSecs: null,
    here: false,
    ratingTemplate: "rate_us",
  },
  chatTypes: [{ value: "phonechat", label: "phone chat" }],
};

const state = (rating?: string): Json => ({
  channel: { channel: { type: "conversations_select", selected_conversation: "C0SUPPORT" } },
  ...(rating === undefined ? {} : { rating: { rating: { type: "plain_text_input", value: rating } } }),
});

describe("the inbox form's rating after Resolve", () => {
  it("shows the inbox's rating template, and words without a command", () => {
    const view = inboxModal(data, {}) as Json;
    const block = (view.blocks as Json[]).find((b) => b.block_id === "rating");
    expect(block?.label.text).toBe("Rating after Resolve");
    expect(block?.element.initial_value).toBe("rate_us");
    expect(JSON.stringify(view.blocks)).not.toContain("/sb");
  });

  it("is read into the line: a name, none, or a refusal at its field", () => {
    expect(inboxLine(state("rate_us"))).toMatchObject({ line: "inbox on C0SUPPORT rating=rate_us" });
    expect(inboxLine(state(""))).toMatchObject({ line: "inbox on C0SUPPORT" });
    expect(inboxLine(state("rate us please"))).toEqual({
      errors: { rating: "A template's name, without spaces, like rate_us." },
    });
  });
});
