// Secrets at rest (API keys, Slack bot and refresh tokens): AES-256-GCM with
// SWITCHBOARD_SECRET_KEY, Node's own crypto only. Each sealed value names the
// key that sealed it (its version: a short fingerprint of the key, so no
// numbering has to be kept in step between replicas), so a deployment can
// rotate keys: SWITCHBOARD_SECRET_KEY_PREVIOUS still opens what the old key
// sealed, and such a value comes back marked `stale`, for the store to rewrite
// it with the current key. A context (what the value is and whose) is bound to
// the ciphertext as additional data: a value copied onto another row does not
// open. Neither keys nor values appear in any message this file makes.
//
// Sealed form: `sb1.<key version>.<iv>.<tag>.<ciphertext>`, base64url parts.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { ConfigError, SwitchboardError } from "./errors.ts";

const FORMAT = "sb1";
const KEY_BYTES = 32;
const IV_BYTES = 12; // GCM's recommended nonce length
const TAG_BYTES = 16;

/** A sealed value does not open: another key, tampered, or not a sealed value at all. */
export class SecretUnreadableError extends SwitchboardError {
  readonly code = "secret_unreadable";
}

/**
 * 32 bytes written in base64 (standard or url-safe, padded or not) or in hex
 * (64 digits). Anything else, a short key included, is refused with the name
 * of the setting and never its value.
 */
export function decodeSecretKey(name: string, text: string): Buffer {
  const t = text.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(t)) key = Buffer.from(t, "hex");
  else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) key = Buffer.from(t.replace(/=$/, ""), "base64url");
  if (!key || key.length !== KEY_BYTES) {
    throw new ConfigError(
      `${name}: must be 32 random bytes written in base64 (44 characters) or hex (64 digits); ` +
        "make one with: openssl rand -base64 32",
    );
  }
  if (key.every((b) => b === key[0])) {
    throw new ConfigError(
      `${name}: is not random (every byte is the same); make one with: openssl rand -base64 32`,
    );
  }
  return key;
}

/** The version stored with each value: 8 bytes of a hash of the key, which tell keys apart and reveal nothing of them. */
const versionOf = (key: Buffer) =>
  createHash("sha256")
    .update("switchboard secret key version\0")
    .update(key)
    .digest("base64url")
    .slice(0, 11);

export interface Opened {
  value: string;
  /** Sealed with the previous key: seal it again with the current one. */
  stale: boolean;
}

export class Keyring {
  readonly #current: { key: Buffer; version: string };
  readonly #previous?: { key: Buffer; version: string };

  constructor(current: Buffer, previous?: Buffer) {
    if (current.length !== KEY_BYTES || (previous && previous.length !== KEY_BYTES)) {
      throw new ConfigError("a secret key must be 32 bytes");
    }
    this.#current = { key: Buffer.from(current), version: versionOf(current) };
    if (previous && !previous.equals(current)) {
      this.#previous = { key: Buffer.from(previous), version: versionOf(previous) };
    }
  }

  /** From the settings' text: SWITCHBOARD_SECRET_KEY and, while rotating, SWITCHBOARD_SECRET_KEY_PREVIOUS. */
  static fromSettings(current: string, previous?: string): Keyring {
    return new Keyring(
      decodeSecretKey("SWITCHBOARD_SECRET_KEY", current),
      previous ? decodeSecretKey("SWITCHBOARD_SECRET_KEY_PREVIOUS", previous) : undefined,
    );
  }

  /** The current key's version, as stored in each value it seals. */
  get version(): string {
    return this.#current.version;
  }

  /** Encrypts with the current key; `context` (for example `bot_token:T123`) must be given again to open. */
  seal(value: string, context = ""): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(`${this.#current.version}\0${context}`, "utf8"));
    const data = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString("base64url"));
    return [FORMAT, this.#current.version, ...parts].join(".");
  }

  /** Decrypts with whichever key sealed it; refuses a value of another key, another context, or altered. */
  open(sealed: string, context = ""): Opened {
    const parts = sealed.split(".");
    if (parts.length !== 5 || parts[0] !== FORMAT) {
      throw new SecretUnreadableError("a stored secret is not in Switchboard's sealed form");
    }
    const [, version, iv, tag, data] = parts as [string, string, string, string, string];
    const entry = [this.#current, this.#previous].find((k) => k?.version === version);
    if (!entry) {
      throw new SecretUnreadableError(
        "a stored secret was sealed with a key that is neither SWITCHBOARD_SECRET_KEY nor SWITCHBOARD_SECRET_KEY_PREVIOUS",
      );
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", entry.key, Buffer.from(iv, "base64url"), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(`${version}\0${context}`, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      const value = Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]);
      return { value: value.toString("utf8"), stale: entry !== this.#current };
    } catch {
      throw new SecretUnreadableError("a stored secret does not open: altered, or moved from another record");
    }
  }

  /** Whether a sealed value needs sealing again (it names another key than the current one). */
  isStale(sealed: string): boolean {
    return sealed.split(".")[1] !== this.#current.version;
  }
}
