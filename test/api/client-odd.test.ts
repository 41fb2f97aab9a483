// The client against a second server whose shapes differ from the sandbox's:
// nothing in the client may depend on the sandbox's own choices.

import { once } from "node:events";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import {
  AuthenticationError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
} from "../../src/api/errors.ts";
import { RateLimiter } from "../../src/api/rate-limit.ts";
import type { RequestHook } from "../../src/api/types.ts";
import { eventually } from "../helpers/eventually.ts";
import { useOddServer } from "../helpers/odd-server.ts";
import { rejection } from "../helpers/rejection.ts";

const KEY = "odd_secret_key_3f9a7c21";
const { odd, client, closeAfterTest } = useOddServer({ apiKey: KEY, timeoutMs: 2_000 });

describe("transport", () => {
  it("sends the API key in X-API-Key and reads a bare record", async () => {
    odd.on("GET /me", { json: { id: 1, organization: { name: "Acme" } } });
    const me = await client().getMe();
    expect(me.organization?.name).toBe("Acme");
    expect(odd.requests[0]!.headers["x-api-key"]).toBe(KEY);
    expect(odd.requests[0]!.headers.accept).toContain("application/json");
  });

  it("unwraps a record sent as {data: {...}}", async () => {
    odd.on("GET /contacts/7", { json: { data: { id: 7, phone: "+14155550123" } } });
    expect(await client().getContact(7)).toEqual({ id: 7, phone: "+14155550123" });
  });

  it("keeps a record whole when its own member is called data", async () => {
    odd.on("GET /messages/3", { json: { id: 3, status: "sent", data: { foo: 1 } } });
    expect(await client().getMessage(3)).toEqual({ id: 3, status: "sent", data: { foo: 1 } });
  });

  it("sends only the members the spec names, normalized, as JSON", async () => {
    odd.on("POST /contacts", (req) => ({ status: 201, json: { id: 9, ...(req.json as object) } }));
    await client().createContact({ phone: "+1 (415) 555-0123", first_name: "Ana", email: undefined });
    const req = odd.requests[0]!;
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.json).toEqual({ phone: "+14155550123", first_name: "Ana" });
  });

  it("serializes query parameters as strings, booleans as true/false, leaving out undefined", async () => {
    odd.on("GET /contacts", { json: [] });
    await client().listContacts({ search: "ana", optedOut: false, groupId: 3, page: 2, limit: undefined });
    const q = odd.requests[0]!.query;
    expect(Object.fromEntries(q)).toEqual({
      page: "2",
      limit: "20",
      search: "ana",
      groupId: "3",
      optedOut: "false",
    });
  });

  it("sends the members of a DELETE with a body and no body for state changes", async () => {
    odd.on("DELETE /contact-groups/4/contacts", { json: { removed: 2 } });
    odd.on("POST /contacts/5/opt-out", { status: 201, text: "" });
    const c = client();
    expect(await c.removeGroupContacts(4, [1, 2])).toEqual({ removed: 2 });
    expect(await c.optOutContact(5)).toEqual({});
    expect(odd.requests[0]!.json).toEqual({ contactIds: [1, 2] });
    expect(odd.requests[1]!.body.length).toBe(0);
  });
});

describe("page envelopes", () => {
  it("reads a bare array (no total)", async () => {
    odd.on("GET /tags", { json: [{ id: 1 }, { id: 2 }] });
    const page = await client().listTags();
    expect(page.items).toEqual([{ id: 1 }, { id: 2 }]);
    expect(page.total).toBeUndefined();
  });

  it("reads {items, pagination: {total}}", async () => {
    odd.on("GET /contacts", { json: { items: [{ id: 1 }], pagination: { total: 41, page: 3, limit: 1 } } });
    const page = await client().listContacts({ page: 3, limit: 1 });
    expect(page).toEqual({ items: [{ id: 1 }], total: 41, page: 3, limit: 1 });
  });

  it("reads {results} without a total", async () => {
    odd.on("GET /campaigns", { json: { results: [{ id: 5, status: "draft" }] } });
    const page = await client().listCampaigns({ status: "draft" });
    expect(page).toEqual({ items: [{ id: 5, status: "draft" }], page: 1, limit: 20 });
    expect(odd.requests[0]!.query.get("status")).toBe("draft");
  });

  it("reads {data, meta: {total}} and {data, total}", async () => {
    odd.on("GET /chat-users", { json: { data: [{ id: 1 }], meta: { total: "12" } } });
    odd.on("GET /campaigns/2/recipients", { json: { data: [{ id: 1 }, { id: 2 }], total: 2 } });
    const c = client();
    expect((await c.listChatUsers()).total).toBe(12);
    const recipients = await c.listCampaignRecipients(2);
    expect(recipients.total).toBe(2);
    expect(recipients.limit).toBe(50);
  });

  it("refuses an answer that holds no list", async () => {
    odd.on("GET /contact-fields", { json: { hello: "world" } });
    const err = await rejection(client().listContactFields());
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toContain("not a list");
  });
});

describe("error bodies become one readable message and a typed error", () => {
  it("plain text 404 -> NotFoundError", async () => {
    odd.on("GET /tags/99", { status: 404, text: "Tag 99 does not exist" });
    const err = await rejection(client().getTag(99));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe("Tag 99 does not exist");
    expect((err as NotFoundError).status).toBe(404);
    expect((err as NotFoundError).operation).toBe("getTag");
  });

  it("{error: {message}} 409 -> ConflictError", async () => {
    odd.on("DELETE /templates/3", { status: 409, json: { error: { message: "approved templates stay" } } });
    const err = await rejection(client().deleteTemplate(3));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.message).toBe("approved templates stay");
  });

  it("NestJS {statusCode, message: string[], error} 400 -> ValidationError with field problems", async () => {
    odd.on("POST /tags", {
      status: 400,
      json: {
        statusCode: 400,
        message: ["name must be unique", "property shade should not exist"],
        error: "Bad Request",
      },
    });
    const err = (await rejection(client().createTag({ name: "vip", color: "#00ff00" }))) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe("name must be unique; property shade should not exist");
    expect(err.problems).toEqual([
      { field: "name", rule: "must be unique" },
      { field: "shade", rule: "is not a member this operation accepts" },
    ]);
  });

  it("422 with a NestJS string message -> ValidationError", async () => {
    odd.on("POST /messages", {
      status: 422,
      json: { statusCode: 422, message: "outside the 24-hour window", error: "Unprocessable Entity" },
    });
    const err = await rejection(
      client().sendMessage({ channelId: 1, type: "text", contactId: 2, text: "hi" }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe("outside the 24-hour window");
  });

  it('{error: "text"} 403 -> PermissionError, {message} 401 -> AuthenticationError', async () => {
    odd.on("POST /contact-groups", { status: 403, json: { error: "missing scope write" } });
    odd.on("GET /contact-groups", { status: 401, json: { message: "Invalid API key" } });
    const c = client();
    const denied = await rejection(c.createGroup({ name: "x" }));
    expect(denied).toBeInstanceOf(PermissionError);
    expect(denied.message).toBe("missing scope write");
    const refused = await rejection(c.listGroups());
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused.message).toBe("Invalid API key");
  });

  it("an empty error body still gives a message", async () => {
    odd.on("GET /tags/1", { status: 404 });
    const err = await rejection(client().getTag(1));
    expect(err.message).toBe("not found");
  });

  it("never repeats the API key, even when the service echoes it", async () => {
    const lines: string[] = [];
    const logger = {
      warn: (o: object, m?: string) => lines.push(JSON.stringify(o) + (m ?? "")),
      debug: (o: object, m?: string) => lines.push(JSON.stringify(o) + (m ?? "")),
    };
    odd.on("GET /me", { status: 401, text: `key ${KEY} is unknown` });
    odd.on("GET /tags", { status: 503, text: `down for ${KEY}` });
    const c = client({ logger, maxRetries: 1 });
    const err = await rejection(c.getMe());
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).not.toContain(KEY);
    expect(err.message).toContain("…7c21");
    expect(String(err.stack)).not.toContain(KEY);
    await rejection(c.listTags());
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join("\n")).not.toContain(KEY);
  });
});

describe("retries", () => {
  it("waits out a 429 (Retry-After seconds) and tries the GET again", async () => {
    odd.on(
      "GET /tags",
      { status: 429, headers: { "retry-after": "0" }, text: "slow down" },
      { json: [{ id: 1 }] },
    );
    expect((await client().listTags()).items).toEqual([{ id: 1 }]);
    expect(odd.count("GET /tags")).toBe(2);
  });

  it("retries a write after a 429 (HTTP-date Retry-After): the write was not performed", async () => {
    const past = new Date(Date.now() - 5_000).toUTCString();
    odd.on(
      "POST /tags",
      { status: 429, headers: { "retry-after": past }, json: { message: "rate limited" } },
      { status: 201, json: { id: 4, name: "vip" } },
    );
    expect(await client().createTag({ name: "vip", color: "#112233" })).toEqual({ id: 4, name: "vip" });
    expect(odd.count("POST /tags")).toBe(2);
  });

  it("gives up with RateLimitError after maxRetries", async () => {
    odd.on("GET /tags", { status: 429, headers: { "retry-after": "0" }, text: "slow down" });
    const err = (await rejection(client({ maxRetries: 2 }).listTags())) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(odd.count("GET /tags")).toBe(3);
  });

  it("throws RateLimitError at once when Retry-After exceeds the longest wait it accepts", async () => {
    odd.on("GET /tags", { status: 429, headers: { "retry-after": "3600" }, text: "come back in an hour" });
    const err = (await rejection(client().listTags())) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterMs).toBe(3_600_000);
    expect(err.message).toBe("come back in an hour");
    expect(odd.count()).toBe(1);
  });

  it("retries a GET after a 5xx", async () => {
    odd.on("GET /campaigns/8", { status: 502, text: "bad gateway" }, { json: { id: 8, status: "running" } });
    expect((await client().getCampaign(8)).status).toBe("running");
    expect(odd.count()).toBe(2);
  });

  it("gives up on a GET that keeps failing with ServerError", async () => {
    odd.on("GET /campaigns/8", { status: 500, json: { statusCode: 500, message: "Internal server error" } });
    const err = await rejection(client({ maxRetries: 2 }).getCampaign(8));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.message).toBe("Internal server error");
    expect(odd.count()).toBe(3);
  });

  it("never retries a write after a 5xx: it may have been performed", async () => {
    odd.on("POST /campaigns/8/send", { status: 500, text: "oops" }, { status: 201, json: { id: 8 } });
    const err = await rejection(client().sendCampaign(8));
    expect(err).toBeInstanceOf(ServerError);
    expect(odd.count()).toBe(1);
  });

  it("retries a GET after a connection reset", async () => {
    odd.on("GET /chat-users/2", { reset: true }, { json: { id: 2, name: "Bo" } });
    expect((await client().getChatUser(2)).name).toBe("Bo");
    expect(odd.count()).toBe(2);
  });

  it("never retries a write after a connection reset: NetworkError, mayHaveReachedServer", async () => {
    odd.on("PATCH /chat-users/2", { reset: true }, { json: { id: 2 } });
    const err = (await rejection(
      client().updateChatUser(2, { standardFields: { name: "Bo" } }),
    )) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.mayHaveReachedServer).toBe(true);
    expect(odd.count()).toBe(1);
    expect(err.message).toContain("the connection was cut");
    expect(err.message).not.toMatch(/\bE[A-Z]{4,}\b|UND_ERR/);
  });

  it("an address not found is said in words, not ENOTFOUND (issue 39 §2)", async () => {
    const c = closeAfterTest(
      new MessagingClient({ baseUrl: "http://nosuch.invalid/v1", apiKey: KEY, maxRetries: 0 }),
    );
    const err = (await rejection(c.getMe())) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toContain("its address was not found");
    expect(err.message).not.toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it("times out a slow answer with NetworkError", async () => {
    odd.on("GET /me", { delayMs: 3_000, json: {} });
    const err = (await rejection(client({ timeoutMs: 500, maxRetries: 0 }).getMe())) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toContain("no answer within 500 ms");
    expect(err.mayHaveReachedServer).toBe(true);
  });

  it("a timed-out write is not retried", async () => {
    odd.on("POST /contacts/3/opt-in", { delayMs: 3_000, status: 201, json: {} });
    const err = (await rejection(client({ timeoutMs: 500 }).optInContact(3))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.mayHaveReachedServer).toBe(true);
    // The client has given up; the service saw the write once and will not see it again.
    await eventually(() => odd.count() === 1, "the write at the service");
    expect(odd.count()).toBe(1);
  });

  it("a refused connection is a NetworkError that certainly did not reach the service", async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const warnings: Array<Record<string, unknown>> = [];
    const logger = { warn: (o: object) => warnings.push(o as Record<string, unknown>), debug: () => {} };
    const c = closeAfterTest(
      new MessagingClient({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        apiKey: KEY,
        random: () => 0,
        maxRetries: 2,
        logger,
      }),
    );
    const err = (await rejection(c.createGroup({ name: "x" }))) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.mayHaveReachedServer).toBe(false);
    // In words, since the message may reach a person (issue 39 §2: "(ENOTFOUND)"); the code stays in the log.
    expect(err.message).toContain("it refused the connection");
    expect(err.message).not.toMatch(/\bE[A-Z]{4,}\b/);
    expect(warnings[0]?.code).toBe("ECONNREFUSED");
    // It never left, so the write was safe to try again: 3 attempts.
    expect(warnings.map((w) => w.retry)).toEqual([true, true, false]);
  });

  it("a caller's abort ends the call with the abort reason, not a NetworkError", async () => {
    odd.on("GET /me", { delayMs: 3_000, json: {} });
    const ctl = new AbortController();
    const call = client().getMe({ signal: ctl.signal });
    // Abort while the request is in flight (and recorded, so no late arrival leaks into the next test).
    await eventually(() => odd.count() === 1, "the request at the service");
    ctl.abort(new Error("user gave up"));
    const err = await rejection(call);
    expect(err.message).toBe("user gave up");
    expect(err).not.toBeInstanceOf(NetworkError);
  });
});

describe("bad input is refused before any request", () => {
  const cases: Array<[string, (c: MessagingClient) => Promise<unknown>, string]> = [
    ["id not a number", (c) => c.getContact("abc" as unknown as number), "id must be a number"],
    ["id zero", (c) => c.deleteTag(0), "id must be a positive number"],
    ["id fraction", (c) => c.getTemplate(1.5), "id must be a whole number"],
    ["id missing", (c) => c.getCampaign(undefined as unknown as number), "id is required"],
    ["conversation id", (c) => c.listConversationMessages(-1), "conversationId must be a positive number"],
    ["phone", (c) => c.createContact({ phone: "12" }), "phone must be a phone number in E.164"],
    ["colour", (c) => c.createTag({ name: "x", color: "red" }), "color must be a hexadecimal colour"],
    ["unknown member", (c) => c.createGroup({ name: "x", extra: 1 } as never), "extra is not a member"],
    ["limit", (c) => c.listContacts({ limit: 101 }), "limit must be between 1 and 100"],
    ["page", (c) => c.listCampaigns({ page: 0 }), "page must be at least 1"],
    ["status enum", (c) => c.listTemplates({ status: "gone" as never }), "status must be one of pending"],
    ["recipient", (c) => c.sendMessage({ channelId: 1, type: "text", text: "x" }), "to is required"],
    ["members", (c) => c.addGroupContacts(1, []), "contactIds must name at least one contact"],
    ["sync", (c) => c.syncTemplates(0), "channelId must be a positive number"],
    ["nothing to update", (c) => c.updateTag(1, {}), "give at least one member to change"],
    [
      "import flag",
      (c) =>
        c.importContacts(
          { filename: "a.csv", body: new Uint8Array([1]) },
          { updateExisting: "yes" as unknown as boolean },
        ),
      "updateExisting must be true or false",
    ],
    [
      "import file",
      (c) => c.importContacts({ filename: "", body: "x" as never }, { updateExisting: true }),
      "file.filename is required",
    ],
  ];

  it.each(cases)("%s", async (_name, call, expected) => {
    const err = (await rejection(call(client()))) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain(expected);
    expect(err.problems.length).toBeGreaterThan(0);
    expect(err.status).toBeUndefined();
    expect(odd.count()).toBe(0);
  });
});

describe("contact import (multipart)", () => {
  const csv = "phone,first_name\n+14155550123,Ana\n+14155550124,Bo\n";

  async function received(): Promise<FormData> {
    const req = odd.requests[0]!;
    return new Response(new Uint8Array(req.body), {
      headers: { "content-type": String(req.headers["content-type"]) },
    }).formData();
  }

  it("sends a buffered file with groupId and updateExisting, and reads the result leniently", async () => {
    odd.on("POST /contacts/import", {
      status: 201,
      json: {
        data: { created: [{ id: 1 }, { id: 2 }], updated: "0", errors: [{ row: 4, error: "bad phone" }] },
      },
    });
    const result = await client().importContacts(
      { filename: "people.csv", contentType: "text/csv", body: new TextEncoder().encode(csv) },
      { groupId: 3, updateExisting: false },
    );
    expect(result.created).toBe(2);
    expect(result.updated).toBe(0);
    expect(result.errors).toEqual([{ row: 4, error: "bad phone", message: "bad phone" }]);
    const form = await received();
    expect(form.get("groupId")).toBe("3");
    expect(form.get("updateExisting")).toBe("false");
    const file = form.get("file") as File;
    expect(file.name).toBe("people.csv");
    expect(await file.text()).toBe(csv);
  });

  it("streams an AsyncIterable file", async () => {
    odd.on("POST /contacts/import", { status: 201, json: { created: 2, updated: 0, errors: 1 } });
    async function* chunks() {
      for (const line of csv.split("\n")) yield new TextEncoder().encode(`${line}\n`);
    }
    const result = await client().importContacts(
      { filename: "big.csv", body: chunks() },
      { updateExisting: true },
    );
    expect(result).toMatchObject({ created: 2, updated: 0 });
    expect(result.errors).toHaveLength(1);
    const form = await received();
    expect(form.get("updateExisting")).toBe("true");
    expect(form.has("groupId")).toBe(false);
    expect(await (form.get("file") as File).text()).toBe(`${csv}\n`);
  });

  it("streams a ReadableStream file", async () => {
    odd.on("POST /contacts/import", { status: 201, json: { created: 1 } });
    const stream = new Blob([csv]).stream();
    await client().importContacts({ filename: "s.csv", body: stream }, { updateExisting: true });
    expect(await ((await received()).get("file") as File).text()).toBe(csv);
  });
});

describe("pagination", () => {
  const people = Array.from({ length: 7 }, (_, i) => ({ id: i + 1 }));
  const slice = (q: URLSearchParams) => {
    const page = Number(q.get("page"));
    const limit = Number(q.get("limit"));
    return people.slice((page - 1) * limit, page * limit);
  };

  it("stops at the total when the service gives one", async () => {
    odd.on("GET /contacts", (req) => ({ json: { items: slice(req.query), pagination: { total: 7 } } }));
    const ids: number[] = [];
    for await (const c of client().paginate("listContacts", { limit: 3 })) ids.push(c.id!);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(odd.count()).toBe(3);
  });

  it("stops at a short page when there is no total", async () => {
    odd.on("GET /campaigns/5/recipients", (req) => ({ json: slice(req.query) }));
    const ids: number[] = [];
    for await (const r of client().paginate("listCampaignRecipients", { id: 5, limit: 7 })) ids.push(r.id!);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // The full first page cannot tell it was the last: one more (empty) page is asked for.
    expect(odd.count()).toBe(2);
  });

  it("stops after max items", async () => {
    odd.on("GET /chat-users", (req) => ({ json: { results: slice(req.query) } }));
    const ids: number[] = [];
    for await (const u of client().paginate("listChatUsers", { limit: 2 }, { max: 3 })) ids.push(u.id!);
    expect(ids).toEqual([1, 2, 3]);
    expect(odd.count()).toBe(2);
  });

  it("stops when the service ignores the page number", async () => {
    odd.on("GET /conversations/9/messages", { json: [{ id: 1 }, { id: 2 }] });
    const ids: number[] = [];
    for await (const m of client().paginate("listConversationMessages", { id: 9, limit: 2 })) ids.push(m.id!);
    expect(ids).toEqual([1, 2]);
    expect(odd.count()).toBe(2);
  });

  it("validates the query before the first page", async () => {
    const it = client().paginate("listContacts", { limit: 0 });
    await expect(it.next()).rejects.toBeInstanceOf(ValidationError);
    expect(odd.count()).toBe(0);
  });
});

describe("hooks on the transport (withHook)", () => {
  type Seen = {
    operation: string;
    method: string;
    path: string;
    status?: number;
    data?: unknown;
    error?: string;
  };
  function recording(seen: Seen[]): RequestHook {
    return async (request, next) => {
      try {
        const res = await next();
        seen.push({ ...request, status: res.status, data: res.data });
        return res;
      } catch (err) {
        seen.push({ ...request, error: (err as Error).name });
        throw err;
      }
    };
  }

  it("runs around reads and writes with the operation, method, path, a write's body and the answer the function returns", async () => {
    odd.on("GET /contacts", { json: { data: [{ id: 1 }], meta: { total: 1 } } });
    odd.on("PATCH /tags/7", { status: 200, json: { data: { name: "vip" } } });
    const seen: Seen[] = [];
    const api = client().withHook(recording(seen));
    await api.listContacts({ optedOut: false });
    await api.updateTag(7, { name: "vip" });
    expect(seen).toEqual([
      {
        operation: "listContacts",
        method: "GET",
        path: "/contacts",
        status: 200,
        data: { items: [{ id: 1 }], total: 1, page: 1, limit: 20 },
      },
      {
        operation: "updateTag",
        method: "PATCH",
        path: "/tags/7",
        body: { name: "vip" },
        status: 200,
        data: { name: "vip" },
      },
    ]);
  });

  it("runs once per call around the retries, and sees the typed error of a write that failed", async () => {
    odd.on(
      "POST /tags",
      { status: 429, headers: { "retry-after": "0" }, text: "slow down" },
      { status: 201, json: { id: 4 } },
    );
    odd.on("DELETE /tags/4", { status: 503, text: "down" });
    const seen: Seen[] = [];
    const api = client().withHook(recording(seen));
    await api.createTag({ name: "vip", color: "#112233" });
    await rejection(api.deleteTag(4));
    expect(seen.map((s) => [s.operation, s.status ?? s.error])).toEqual([
      ["createTag", 201],
      ["deleteTag", "ServerError"],
    ]);
    expect(odd.count("POST /tags")).toBe(2);
    expect(odd.count("DELETE /tags/4")).toBe(1);
  });

  it("never sees input refused before any request, nor the import's", async () => {
    const seen: Seen[] = [];
    const api = client().withHook(recording(seen));
    await rejection(api.createTag({ name: "x", color: "red" }));
    await rejection(api.getTag(0));
    await rejection(api.importContacts({ filename: "", body: new Uint8Array(1) }, { updateExisting: true }));
    expect(seen).toEqual([]);
    expect(odd.count()).toBe(0);
  });

  it("cannot send a request twice: a second next() rejects", async () => {
    odd.on("POST /contacts/5/opt-out", { status: 201, json: { id: 5 } });
    let second: unknown;
    const api = client().withHook(async (_request, next) => {
      const res = await next();
      second = await rejection(next());
      return res;
    });
    expect(await api.optOutContact(5)).toEqual({ id: 5 });
    expect((second as Error).message).toMatch(/next\(\) twice/);
    expect(odd.count()).toBe(1);
  });

  it("nests hooks in the order added, and shares the transport's rate limits with the client it came from", async () => {
    odd.on("GET /me", { json: { id: 1 } });
    const order: string[] = [];
    const named =
      (name: string): RequestHook =>
      async (_request, next) => {
        order.push(`${name} in`);
        const res = await next();
        order.push(`${name} out`);
        return res;
      };
    const base = client({ limiter: new RateLimiter({ readPerMinute: 60_000 }) });
    const view = base.withHook(named("outer")).withHook(named("inner"));
    await view.getMe();
    expect(order).toEqual(["outer in", "inner in", "inner out", "outer out"]);
    // The client's own limiter granted the view's request.
    expect(base.budget().read.granted.interactive).toBe(1);
    // The client itself runs no hook.
    await base.getMe();
    expect(order).toHaveLength(4);
    expect(view.budget().read.granted.interactive).toBe(2);
  });

  it("paginate runs through the view's hooks, a GET per page", async () => {
    odd.on("GET /campaigns", { json: { items: [{ id: 1 }], total: 1 } });
    const seen: Seen[] = [];
    const items: unknown[] = [];
    for await (const c of client().withHook(recording(seen)).paginate("listCampaigns")) items.push(c);
    expect(items).toEqual([{ id: 1 }]);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(["GET /campaigns"]);
  });
});
