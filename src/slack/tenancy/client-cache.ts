// Bolt keeps a WebClient per workspace and per token for the listeners'
// `client` (App.clients: team id → pool, token → client) and never drops one.
// With many workspaces that grows with every workspace that ever made a
// request, and with token rotation by two clients a workspace a day. Here the
// cache is bounded: the most recently used `keep` workspaces, each with the
// client of its latest token only (an earlier token's client is not used
// again: the installation hands out the new one).
type Pool = { pool: Record<string, unknown>; getOrCreate(token: string, options: unknown): unknown };

/**
 * `shared(team)`: the workspace's own bot client when its runtime is built
 * (src/workspaces/runtime.ts): Bolt's listeners then use it too, one client a
 * workspace instead of two (each ~26 KiB, docs/benchmarks.md). It takes its
 * token from the TokenSource at each call, the same bot token authorize gave.
 */
export function boundBoltClients(app: object, keep: number, shared?: (team: string) => unknown): void {
  const lru = new Map<string, Pool>();
  const clients = new Proxy({} as Record<string, Pool | undefined>, {
    get(_target, key) {
      if (typeof key !== "string") return undefined;
      const pool = lru.get(key);
      if (pool) {
        lru.delete(key);
        lru.set(key, pool);
      }
      return pool;
    },
    set(_target, key, pool: Pool) {
      if (typeof key !== "string") return false;
      const create = pool.getOrCreate.bind(pool);
      pool.getOrCreate = (token, options) => {
        const own = shared?.(key);
        if (own) {
          pool.pool = {};
          return own;
        }
        const client = create(token, options);
        for (const t of Object.keys(pool.pool)) if (t !== token) delete pool.pool[t];
        return client;
      };
      lru.set(key, pool);
      while (lru.size > keep) lru.delete(lru.keys().next().value as string);
      return true;
    },
    ownKeys: () => [...lru.keys()],
    getOwnPropertyDescriptor: (_target, key) =>
      typeof key === "string" && lru.has(key)
        ? { enumerable: true, configurable: true, value: lru.get(key) }
        : undefined,
  });
  (app as { clients: unknown }).clients = clients;
}
