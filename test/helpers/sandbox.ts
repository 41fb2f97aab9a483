// Test helpers for the sandbox API: withSandbox() starts one sandbox for a
// test file (beforeAll) and closes it (afterAll); call() speaks raw HTTP to it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished } from "vitest";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../src/sandbox/index.ts";
import { openDb } from "../../src/store/db.ts";
import { perFile } from "./per-file.ts";

export type { Sandbox, SandboxOptions };

/** Starts a sandbox before the file's tests and closes it after; returns a getter. */
export function withSandbox(opts: SandboxOptions = {}): () => Sandbox {
  return perFile("sandbox", () => startSandbox(opts));
}

/** Starts a sandbox, runs `body` on it and closes it, whatever happens; gives back what `body` gives. */
export async function onSandbox<T>(opts: SandboxOptions, body: (sb: Sandbox) => Promise<T>): Promise<T> {
  const sb = await startSandbox(opts);
  try {
    return await body(sb);
  } finally {
    await sb.close();
  }
}

/**
 * onSandbox() on a PGlite database kept in the folder `dataDir`, closed after the sandbox: a second start
 * on the same folder finds what the first one wrote.
 */
export async function onSandboxInDir<T>(
  dataDir: string,
  opts: SandboxOptions,
  body: (sb: Sandbox) => Promise<T>,
): Promise<T> {
  const db = await openDb({ dataDir });
  try {
    return await onSandbox({ ...opts, db }, body);
  } finally {
    await db.close();
  }
}

/** A new temporary folder, removed when the test finishes. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A clock tests move by hand; pass `now` to startSandbox. */
export function manualClock(start = new Date()) {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
  };
}

/** A JSON record read loosely: tests assert on its members. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by assertions, not types.
export type Rec = Record<string, any>;

// biome-ignore lint/suspicious/noExplicitAny: see Rec.
export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * One request to the sandbox. `key` defaults to the read-write key; pass null
 * to send none. Objects go as JSON; FormData as multipart.
 */
// biome-ignore lint/suspicious/noExplicitAny: see Rec.
export async function call<T = any>(
  sandbox: Sandbox,
  method: string,
  path: string,
  opts: { body?: unknown; key?: string | null; query?: Record<string, string | number | boolean> } = {},
): Promise<CallResult<T>> {
  const url = new URL(sandbox.url + path);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = {};
  const key = opts.key === undefined ? sandbox.apiKey : opts.key;
  if (key !== null) headers["x-api-key"] = key;
  let body: string | FormData | undefined;
  if (opts.body instanceof FormData) body = opts.body;
  else if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** POSTs `body` to `path`, expects 201 Created (the answer's message otherwise) and gives the record made. */
export async function postCreated(sandbox: Sandbox, path: string, body: unknown): Promise<Rec> {
  const r = await call(sandbox, "POST", path, { body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

/** A rating template (issue 29 §4): approved at once, one quick-reply button per option, on `channelId`. */
export async function ratingTemplate(
  client: {
    createTemplate(input: never): Promise<unknown>;
    syncTemplates(channelId: number): Promise<unknown>;
  },
  channelId: number,
  name: string,
  options: string[],
): Promise<void> {
  await client.createTemplate({
    integrationId: channelId,
    name,
    language: "en",
    category: "UTILITY",
    bodyText: "How did we do?",
    buttons: options.map((text) => ({ type: "QUICK_REPLY", text })),
  } as never);
  await client.syncTemplates(channelId);
}

/**
 * One template message through the sandbox's API (`POST /messages`, in English, on channel 1 unless
 * `channelId` says), to a contact (`{ contactId }`) or a phone (`{ to }`).
 */
export function sendTemplate(
  sandbox: Sandbox,
  recipient: { contactId: number } | { to: string },
  name: string,
  opts: { parameters?: Record<string, string>; channelId?: number; key?: string } = {},
): Promise<CallResult> {
  const { parameters, channelId = 1, key } = opts;
  return call(sandbox, "POST", "/messages", {
    key,
    body: { channelId, type: "template", ...recipient, template: { name, language: "en", parameters } },
  });
}
