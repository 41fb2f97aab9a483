// Secrets at rest (src/platform/secrets.ts): AES-256-GCM under SWITCHBOARD_SECRET_KEY,
// the key's version in each value, rotation through SWITCHBOARD_SECRET_KEY_PREVIOUS.
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasCode } from "../src/platform/errors.ts";
import { decodeSecretKey, Keyring } from "../src/platform/secrets.ts";

const key = () => randomBytes(32);

describe("secrets at rest", () => {
  it("opens what it sealed, and keeps nothing of the value in the clear", () => {
    const ring = new Keyring(key());
    const token = "xoxb-1234-5678-abcdefghijkl";
    const sealed = ring.seal(token, "bot_token:T1");
    expect(sealed).not.toContain(token);
    expect(sealed).not.toContain(Buffer.from(token).toString("base64"));
    expect(sealed.startsWith(`sb1.${ring.version}.`)).toBe(true);
    expect(ring.open(sealed, "bot_token:T1")).toEqual({ value: token, stale: false });
    // A fresh nonce each time: the same value never seals the same way twice.
    expect(ring.seal(token, "bot_token:T1")).not.toBe(sealed);
  });

  it("refuses a value sealed with another key, moved to another record, or altered", () => {
    const ring = new Keyring(key());
    const sealed = ring.seal("sk_live_secret", "api_key:T1");
    const other = new Keyring(key());
    expect(() => other.open(sealed, "api_key:T1")).toThrow(/neither SWITCHBOARD_SECRET_KEY nor/);
    expect(() => ring.open(sealed, "api_key:T2")).toThrow(/does not open/);
    const parts = sealed.split(".");
    const data = Buffer.from(parts[4]!, "base64url");
    data[0] = data[0]! ^ 1;
    parts[4] = data.toString("base64url");
    expect(() => ring.open(parts.join("."), "api_key:T1")).toThrow(/does not open/);
    expect(() => ring.open("sk_live_secret")).toThrow(/sealed form/);
    try {
      ring.open(sealed, "api_key:T2");
    } catch (err) {
      expect(hasCode(err, "secret_unreadable")).toBe(true);
      expect(String(err)).not.toContain("sk_live_secret");
    }
  });

  it("rotates: reads with either key, marks the old key's values stale, seals with the new one", () => {
    const oldKey = key();
    const newKey = key();
    const before = new Keyring(oldKey);
    const sealedOld = before.seal("xoxe-refresh", "refresh:T1");
    const during = new Keyring(newKey, oldKey);
    expect(during.isStale(sealedOld)).toBe(true);
    const opened = during.open(sealedOld, "refresh:T1");
    expect(opened).toEqual({ value: "xoxe-refresh", stale: true });
    const resealed = during.seal(opened.value, "refresh:T1");
    expect(during.isStale(resealed)).toBe(false);
    expect(during.open(resealed, "refresh:T1")).toEqual({ value: "xoxe-refresh", stale: false });
    // Once the old key is dropped, only rewritten values open.
    const after = new Keyring(newKey);
    expect(after.open(resealed, "refresh:T1").value).toBe("xoxe-refresh");
    expect(() => after.open(sealedOld, "refresh:T1")).toThrow(/neither/);
    // The old key alone cannot read what the new one sealed.
    expect(() => before.open(resealed, "refresh:T1")).toThrow(/neither/);
  });

  it("reads keys in base64 (padded or not, url-safe or not) and hex", () => {
    const k = key();
    for (const text of [
      k.toString("base64"),
      k.toString("base64").replace(/=$/, ""),
      k.toString("base64url"),
      k.toString("hex"),
      k.toString("hex").toUpperCase(),
      ` ${k.toString("base64")}\n`,
    ]) {
      expect(decodeSecretKey("SWITCHBOARD_SECRET_KEY", text).equals(k)).toBe(true);
    }
    const ring = Keyring.fromSettings(k.toString("hex"), key().toString("base64"));
    expect(new Keyring(k).version).toBe(ring.version);
  });

  it("refuses malformed keys by the setting's name, never echoing them", () => {
    const bad = [
      "",
      "secret",
      randomBytes(16).toString("base64"), // 16 bytes: AES-128's size
      randomBytes(31).toString("hex"),
      randomBytes(33).toString("base64"),
      `${randomBytes(32).toString("hex")}zz`,
      "0".repeat(64), // not random
      "A".repeat(43),
    ];
    for (const text of bad) {
      let thrown: unknown;
      try {
        decodeSecretKey("SWITCHBOARD_SECRET_KEY_PREVIOUS", text);
      } catch (err) {
        thrown = err;
      }
      expect(hasCode(thrown, "config"), text).toBe(true);
      const message = (thrown as Error).message;
      expect(message).toMatch(/^SWITCHBOARD_SECRET_KEY_PREVIOUS: /);
      if (text) expect(message).not.toContain(text);
    }
    expect(() => Keyring.fromSettings("short")).toThrow(/^SWITCHBOARD_SECRET_KEY: /);
    expect(() => Keyring.fromSettings(key().toString("hex"), "short")).toThrow(
      /^SWITCHBOARD_SECRET_KEY_PREVIOUS: /,
    );
  });

  it("round-trips any text under any context, and no other context opens it", () => {
    const ring = new Keyring(key(), key());
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string(), fc.string(), (value, context, other) => {
        const sealed = ring.seal(value, context);
        expect(ring.open(sealed, context)).toEqual({ value, stale: false });
        if (other !== context) expect(() => ring.open(sealed, other)).toThrow();
      }),
      { numRuns: 300 },
    );
  });
});
