// One deadline for a person's call (issue 10 §5): against a service that
// accepts and never answers, an interactive read gives up with TimeoutError
// after a bounded number of attempts; background work keeps its retries.
// Attempts are counted, never elapsed time.

import { describe, expect, it } from "vitest";
import { BudgetError, NetworkError, TimeoutError } from "../../src/api/errors.ts";
import { blocksToText } from "../../src/blocks/text.ts";
import { apiErrorReply } from "../../src/commands/errors.ts";
import { useOddServer } from "../helpers/odd-server.ts";
import { rejection } from "../helpers/rejection.ts";

const { odd, client } = useOddServer({
  apiKey: "deadline_key_8c1e",
  timeoutMs: 200,
  deadlineMs: 500,
  maxRetries: 4,
  backgroundReadShare: 1,
});

describe("the deadline of an interactive call", () => {
  it("a hanging read gives up with TimeoutError after at most 3 attempts, not 5", async () => {
    odd.on("GET /tags", { hang: true });
    const err = (await rejection(client().listTags())) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe("api_timeout");
    expect(err.timedOut).toBe(true);
    expect(err.deadlineMs).toBe(500);
    expect(err.message).toContain("did not answer within 500 ms");
    // 500 ms of deadline hold at most 3 attempts of 200 ms; maxRetries alone would allow 5.
    expect(odd.count("GET /tags")).toBeGreaterThanOrEqual(1);
    expect(odd.count("GET /tags")).toBeLessThanOrEqual(3);
    expect(err.attempts).toBe(odd.count("GET /tags"));
  });

  it("a hanging write is sent once and says it may have reached the service", async () => {
    odd.on("POST /tags", { hang: true });
    const err = (await rejection(
      client({ timeoutMs: 2_000 }).createTag({ name: "vip", color: "#1D9BD1" }),
    )) as TimeoutError;
    // The deadline (500 ms) cut the only attempt short.
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.mayHaveReachedServer).toBe(true);
    expect(err.attempts).toBe(1);
    expect(odd.count("POST /tags")).toBe(1);
  });

  it("background work has no deadline: it keeps retrying up to maxRetries", async () => {
    odd.on("GET /tags", { hang: true });
    const err = (await rejection(client({ maxRetries: 3 }).listTags({ lane: "background" }))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).not.toBeInstanceOf(TimeoutError);
    expect(err.timedOut).toBe(true);
    expect(odd.count("GET /tags")).toBe(4);
  });

  it("a deadline of 0 turns it off: the interactive read keeps its retries", async () => {
    odd.on("GET /tags", { hang: true });
    const err = await rejection(client({ maxRetries: 3, deadlineMs: 0 }).listTags());
    expect(err).not.toBeInstanceOf(TimeoutError);
    expect(odd.count("GET /tags")).toBe(4);
  });
});

describe("a call held back by the key's own budget", () => {
  it("says the write was not sent, the budget used and when to try again", async () => {
    odd.on("POST /tags", { status: 201, json: { id: 1, name: "vip", color: "#1D9BD1" } });
    // Two writes a minute: one token of burst, the next in about a minute; the deadline is far shorter.
    const c = client({ apiKey: "budget_key_3f9a", writePerMinute: 2, deadlineMs: 300 });
    await c.createTag({ name: "vip", color: "#1D9BD1" });
    const err = (await rejection(c.createTag({ name: "gold", color: "#1D9BD1" }))) as BudgetError;
    expect(err).toBeInstanceOf(BudgetError);
    expect(err).not.toBeInstanceOf(NetworkError);
    expect(err.code).toBe("api_budget");
    expect(err).toMatchObject({ budget: "write", perMinute: 2, deadlineMs: 300 });
    expect(err.retryAfterMs).toBeGreaterThan(0);
    expect(err.message).toMatch(
      /not sent: this key's budget of 2 writes a minute is used; try again in \d+ s/,
    );
    // Only the first write reached the service.
    expect(odd.count("POST /tags")).toBe(1);

    const words = blocksToText(apiErrorReply(err).blocks);
    expect(words).toMatch(/Not sent: this key's budget of 2 writes a minute is used; try again in \d+ s\./);
    expect(words).not.toContain("did not answer");
  });

  it("a read held back past its deadline says so too", async () => {
    odd.on("GET /tags", { json: [] });
    const c = client({ apiKey: "budget_key_read_77e0", readPerMinute: 2, deadlineMs: 300 });
    await c.listTags();
    const err = (await rejection(c.listTags())) as BudgetError;
    expect(err).toBeInstanceOf(BudgetError);
    expect(err).toMatchObject({ budget: "read", perMinute: 2 });
    expect(blocksToText(apiErrorReply(err).blocks)).toMatch(/budget of 2 reads a minute is used/);
    expect(odd.count("GET /tags")).toBe(1);
  });
});
