// Test helpers for the sandbox API: withSandbox() starts one sandbox for a
// test file (beforeAll) and closes it (afterAll); call() speaks raw HTTP to it.
import { type Sandbox, type SandboxOptions, startSandbox } from "../../src/sandbox/index.ts";
import { perFile } from "./per-file.ts";

export type { Sandbox, SandboxOptions };

/** Starts a sandbox before the file's tests and closes it after; returns a getter. */
export function withSandbox(opts: SandboxOptions = {}): () => Sandbox {
  return perFile("sandbox", () => startSandbox(opts));
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
