// A key is checked for what a key can be before any request: printable ASCII,
// at most API_KEY_MAX_LENGTH characters. Refused in words, never echoed.

import { describe, expect, it } from "vitest";
import { API_KEY_MAX_LENGTH, apiKeyProblem, MessagingClient } from "../../src/api/client.ts";
import { ConfigError } from "../../src/platform/errors.ts";
import { useOddServer } from "../helpers/odd-server.ts";

const { odd, closeAfterTest } = useOddServer({ apiKey: "keys_test_key_4a2b" });

function refusal(apiKey: string): Error {
  try {
    closeAfterTest(new MessagingClient({ baseUrl: odd.url, apiKey }));
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the client to refuse the key");
}

describe("an API key's shape", () => {
  it.each([
    ["a NUL", "sb_live_abc\u0000def"],
    ["letters outside Latin-1", "sb_live_ключ_1234"],
    ["a Latin-1 letter outside ASCII", "sb_live_clé_1234"],
    ["a line break", "sb_live_abc\ndef"],
  ])("refuses a key with %s, in words, without the key", (_what, key) => {
    const err = refusal(key);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("not an API key: it has characters a key never has");
    expect(err.message).not.toContain(key.slice(8));
    expect(odd.count()).toBe(0);
  });

  it("refuses a key too long to be one, and does not send it", () => {
    const err = refusal(`sb_live_${"x".repeat(1_000_000)}`);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain("too long to be an API key");
    expect(err.message.length).toBeLessThan(200);
    expect(odd.count()).toBe(0);
  });

  it("takes a key of printable ASCII up to the bound", async () => {
    odd.on("GET /tags", { json: [] });
    const longest = `sb_${"a".repeat(API_KEY_MAX_LENGTH - 3)}`;
    expect(apiKeyProblem(longest)).toBeUndefined();
    expect(apiKeyProblem(`${longest}a`)).toContain("too long");
    const client = closeAfterTest(new MessagingClient({ baseUrl: odd.url, apiKey: longest }));
    await client.listTags();
    expect(odd.requests[0]?.headers["x-api-key"]).toBe(longest);
  });
});
