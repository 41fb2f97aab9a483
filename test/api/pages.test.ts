// Envelope and error-body readers on their own (the HTTP side is in client-odd.test.ts).
import { describe, expect, it } from "vitest";
import { readImportResult } from "../../src/api/client.ts";
import { messageOf, problemsOf, retryAfterMs } from "../../src/api/http.ts";
import { iteratePages, toPage, unwrapRecord } from "../../src/api/pages.ts";
import type { Page } from "../../src/api/types.ts";

describe("toPage", () => {
  it.each([
    ["bare array", [{ id: 1 }], undefined],
    ["data + total", { data: [{ id: 1 }], total: 9 }, 9],
    ["items + meta.total", { items: [{ id: 1 }], meta: { total: 9 } }, 9],
    ["results + pagination.total", { results: [{ id: 1 }], pagination: { total: "9" } }, 9],
    ["data nested one level", { data: { items: [{ id: 1 }], total: 9 } }, 9],
    ["meta.totalItems", { data: [{ id: 1 }], meta: { totalItems: 9 } }, 9],
    ["results without total", { results: [{ id: 1 }] }, undefined],
  ])("%s", (_name, body, total) => {
    const page = toPage(body, { page: 2, limit: 5 });
    expect(page?.items).toEqual([{ id: 1 }]);
    expect(page?.total).toBe(total);
    expect(page?.page).toBe(2);
    expect(page?.limit).toBe(5);
  });

  it("is undefined for a body without a list", () => {
    expect(toPage({ id: 1 })).toBeUndefined();
    expect(toPage("text")).toBeUndefined();
  });
});

describe("unwrapRecord", () => {
  it("unwraps {data} but keeps a record that has its own id", () => {
    expect(unwrapRecord({ data: { id: 1 } })).toEqual({ id: 1 });
    expect(unwrapRecord({ id: 2, data: { x: 1 } })).toEqual({ id: 2, data: { x: 1 } });
    expect(unwrapRecord({ id: 3 })).toEqual({ id: 3 });
  });
});

describe("error bodies", () => {
  it.each([
    [{ message: "plain" }, "plain"],
    [
      { statusCode: 400, message: ["a must be x", "b must be y"], error: "Bad Request" },
      "a must be x; b must be y",
    ],
    [{ statusCode: 404, message: "Tag 3 was not found", error: "Not Found" }, "Tag 3 was not found"],
    [{ error: { message: "nested" } }, "nested"],
    [{ error: "just text" }, "just text"],
    ["<html><body><h1>502 Bad Gateway</h1></body></html>", "502 Bad Gateway"],
    ["", "the service failed"],
    [{ detail: "problem+json detail", title: "Bad" }, "problem+json detail"],
  ])("%j reads as one message", (body, expected) => {
    expect(messageOf(body || undefined, 500)).toBe(expected);
  });

  it("parses field problems from NestJS messages and errors arrays", () => {
    expect(
      problemsOf({ message: ["phone must be E.164", "property x should not exist", "(body) must be JSON"] }),
    ).toEqual([
      { field: "phone", rule: "must be E.164" },
      { field: "x", rule: "is not a member this operation accepts" },
      { field: "(body)", rule: "must be JSON" },
    ]);
    expect(problemsOf({ error: { errors: [{ field: "color", message: "bad colour" }] } })).toEqual([
      { field: "color", rule: "bad colour" },
    ]);
    expect(problemsOf({ message: "Something off" })).toEqual([{ field: "(body)", rule: "Something off" }]);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs({ "retry-after": "3" })).toBe(3000);
    const now = Date.parse("2026-05-01T10:00:00Z");
    expect(retryAfterMs({ "retry-after": "Fri, 01 May 2026 10:00:05 GMT" }, now)).toBe(5000);
    expect(retryAfterMs({ "retry-after": "Fri, 01 May 2026 09:00:00 GMT" }, now)).toBe(0);
    expect(retryAfterMs({ "retry-after": "soon" })).toBeUndefined();
    expect(retryAfterMs({})).toBeUndefined();
  });
});

describe("readImportResult", () => {
  it("reads counts as numbers, strings or lists, and errors as a list or a count", () => {
    expect(
      readImportResult({ created: 2, updated: "1", errors: [{ row: 3, message: "bad" }] }),
    ).toMatchObject({
      created: 2,
      updated: 1,
      errors: [{ row: 3, message: "bad" }],
    });
    const r = readImportResult({ summary: { created: [{}, {}, {}], updated: [], errors: 2 } });
    expect(r.created).toBe(3);
    expect(r.updated).toBe(0);
    expect(r.errors).toHaveLength(2);
    expect(readImportResult("nonsense")).toMatchObject({ created: 0, updated: 0, errors: [] });
  });
});

describe("iteratePages", () => {
  it("starts where asked and stops at the total", async () => {
    const asked: number[] = [];
    const fetchPage = async (page: number): Promise<Page<number>> => {
      asked.push(page);
      return { items: [page * 10, page * 10 + 1], total: 6, page, limit: 2 };
    };
    const got: number[] = [];
    for await (const n of iteratePages(fetchPage, { startPage: 2 })) got.push(n);
    expect(got).toEqual([20, 21, 30, 31]);
    expect(asked).toEqual([2, 3]);
  });
});
