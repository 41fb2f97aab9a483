// Response envelopes are not in the spec, so nothing here may depend on the
// sandbox's choices: a page may be a bare array or an object holding the array
// under `data`, `items` or `results`, with a total under `total`, `meta.total`
// or `pagination.total`, or none; a record may be bare or wrapped in `{data}`.
import type { Page } from "./types.ts";

const LIST_MEMBERS = ["data", "items", "results", "records", "rows"] as const;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function asCount(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  if (typeof v === "string" && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

function firstCount(candidates: unknown[]): number | undefined {
  for (const c of candidates) {
    const n = asCount(c);
    if (n !== undefined) return n;
  }
  return undefined;
}

/** The list inside a body, looking one level down (`{data: {items: [...]}}`) too. */
function findList(body: unknown): { list: unknown[]; holder?: Obj } | undefined {
  if (Array.isArray(body)) return { list: body };
  if (!isObject(body)) return undefined;
  for (const name of LIST_MEMBERS) {
    const v = body[name];
    if (Array.isArray(v)) return { list: v, holder: body };
  }
  for (const name of LIST_MEMBERS) {
    const v = body[name];
    if (isObject(v)) {
      const inner = findList(v);
      if (inner?.holder) return inner;
    }
  }
  return undefined;
}

/** Whether a body looks like a page of some list (used to tell a page from a record). */
export function isPageBody(body: unknown): boolean {
  return findList(body) !== undefined;
}

/**
 * Normalizes any known page envelope to `Page<T>`. `requested` is what the
 * client asked for; the body's own page/limit win when it states them.
 * Returns undefined when the body holds no list at all.
 */
export function toPage<T>(
  body: unknown,
  requested: { page?: number; limit?: number } = {},
): Page<T> | undefined {
  const found = findList(body);
  if (!found) return undefined;
  const roots: Obj[] = [];
  if (isObject(body)) roots.push(body);
  if (found.holder && found.holder !== body) roots.push(found.holder);
  const meta = roots.flatMap((r) => [r, r.meta, r.pagination, r.page_info, r.pageInfo].filter(isObject));
  const total = firstCount(
    meta.flatMap((m) => [m.total, m.totalCount, m.total_count, m.totalItems, m.totalResults, m.count_total]),
  );
  const page =
    firstCount(meta.flatMap((m) => [m.currentPage, m.current_page, m.page])) ?? requested.page ?? 1;
  const limit =
    firstCount(
      meta.flatMap((m) => [m.limit, m.perPage, m.per_page, m.pageSize, m.page_size, m.itemsPerPage]),
    ) ??
    requested.limit ??
    found.list.length;
  const out: Page<T> = { items: found.list as T[], page, limit };
  if (total !== undefined) out.total = total;
  return out;
}

/**
 * Unwraps a record sent as `{data: {...}}`. A record that has its own `id` is
 * kept whole even if it has a `data` member, since that member is then its own.
 */
export function unwrapRecord<T>(body: unknown): T {
  if (isObject(body) && isObject(body.data) && !("id" in body)) return body.data as T;
  return body as T;
}

export interface IterateOptions {
  /** First page to fetch (default 1). */
  startPage?: number;
  /** Stop after yielding this many items. */
  max?: number;
}

/**
 * Yields every item across pages. Stops when the total (when the service
 * gives one) is reached, when a page is shorter than its limit or empty, or
 * after `max` items.
 */
export async function* iteratePages<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  opts: IterateOptions = {},
): AsyncGenerator<T, void, undefined> {
  const max = opts.max ?? Number.POSITIVE_INFINITY;
  let yielded = 0;
  let seen = 0;
  let pageNo = opts.startPage ?? 1;
  let previousFirst: string | undefined;
  while (yielded < max) {
    const page = await fetchPage(pageNo);
    if (page.items.length === 0) return;
    // A service that ignores `page` would send the same page forever.
    const first = JSON.stringify(page.items[0]);
    if (first === previousFirst) return;
    previousFirst = first;
    for (const item of page.items) {
      if (yielded >= max) return;
      yield item;
      yielded += 1;
    }
    seen += page.items.length;
    if (page.total !== undefined) {
      if ((pageNo - 1) * page.limit + page.items.length >= page.total || seen >= page.total) return;
    } else if (page.items.length < page.limit) {
      return;
    }
    pageNo += 1;
  }
}
