// The Home tab's line when the messaging API could not be read (issue 39 §2):
// why, in words, never the operation's name ("getMe: …").
import { describe, expect, it } from "vitest";
import { NetworkError } from "../../src/api/errors.ts";
import { failureLine } from "../../src/slack/features/home/view.ts";

describe("the Home tab's failure line", () => {
  it("says why without the operation's name", () => {
    const err = new NetworkError(
      "getMe: the service could not be reached (its address was not found)",
      false,
      {
        operation: "getMe",
      },
    );
    const line = failureLine(err);
    expect(line).toBe(
      ":warning: The messaging API could not be read (the service could not be reached (its address was not found)). Open the tab again later.",
    );
    expect(line).not.toContain("getMe");
  });
  it("keeps a message that does not start with its operation, and says a non-API failure in words", () => {
    expect(
      failureLine(new NetworkError("the connection was cut", false, { operation: "listCampaigns" })),
    ).toContain("(the connection was cut)");
    expect(failureLine(new Error("boom"))).toContain("(it did not answer)");
  });
});
