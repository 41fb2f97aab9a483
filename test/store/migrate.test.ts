import { afterEach, describe, expect, it } from "vitest";
import { type Db, openDb } from "../../src/store/db.ts";
import { type MigrationSet, migrate } from "../../src/store/migrate.ts";
import { openTestDb, storeBackends, type TestDb } from "../helpers/db.ts";

// Deliberately not idempotent (no "if not exists"): running one twice fails.
const shop: MigrationSet = {
  schema: "shop",
  migrations: [
    {
      id: "002_orders",
      sql: `create table shop.orders (id serial primary key, customer int not null references shop.customers);
            create index orders_customer on shop.orders (customer)`,
    },
    { id: "001_customers", sql: "create table shop.customers (id serial primary key, name text not null)" },
  ],
};

describe.each(storeBackends())("migrate on %s", (backend) => {
  const open: Db[] = [];
  const fresh = async () => {
    const db = await openTestDb(backend);
    open.push(db);
    return db;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => db.close()));
  });

  it("applies migrations in id order, once", async () => {
    const db = await fresh();
    expect(await migrate(db, shop)).toEqual(["001_customers", "002_orders"]);
    expect(await migrate(db, shop)).toEqual([]);
    const { rows } = await db.query<{ id: string }>("select id from shop.migrations order by id");
    expect(rows.map((r) => r.id)).toEqual(["001_customers", "002_orders"]);
    await db.query("insert into shop.customers (name) values ('Ada')");
    await db.query("insert into shop.orders (customer) values (1)");
  });

  it("when every migration is applied, only reads the list: no transaction, lock or DDL (each start)", async () => {
    const db = await fresh();
    await migrate(db, shop);
    const calls: string[] = [];
    const watched = new Proxy(db, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(`${String(key)} ${typeof args[0] === "string" ? args[0] : ""}`.trim());
          return value.apply(target, args);
        };
      },
    });
    expect(await migrate(watched, shop)).toEqual([]);
    expect(calls).toEqual(["query select id from shop.migrations"]);
    // A set that grew takes the full path again.
    const grown = {
      ...shop,
      migrations: [...shop.migrations, { id: "003_notes", sql: "create table shop.notes (id int)" }],
    };
    expect(await migrate(watched, grown)).toEqual(["003_notes"]);
    expect(calls.some((c) => c.startsWith("transaction"))).toBe(true);
  });

  it("applies only the new ones when the set grows", async () => {
    const db = await fresh();
    const first = shop.migrations.filter((m) => m.id === "001_customers");
    expect(await migrate(db, { schema: "shop", migrations: first })).toEqual(["001_customers"]);
    const grown = {
      ...shop,
      migrations: [...shop.migrations, { id: "003_notes", sql: "alter table shop.orders add note text" }],
    };
    expect(await migrate(db, grown)).toEqual(["002_orders", "003_notes"]);
  });

  it("applies nothing of a set whose migration fails, and names it", async () => {
    const db = await fresh();
    const broken = {
      schema: "shop",
      migrations: [...shop.migrations, { id: "003_bad", sql: "alter table shop.nowhere add x int" }],
    };
    await expect(migrate(db, broken)).rejects.toThrow(/migration shop\/003_bad failed: .*nowhere/);
    const { rows } = await db.query("select 1 from information_schema.tables where table_schema = 'shop'");
    expect(rows).toHaveLength(0);
    expect(await migrate(db, shop)).toEqual(["001_customers", "002_orders"]);
  });

  it("refuses bad sets before touching the database", async () => {
    const db = await fresh();
    await expect(migrate(db, { schema: "Shop; drop", migrations: [] })).rejects.toThrow(/bad schema name/);
    await expect(
      migrate(db, { schema: "twice", migrations: [shop.migrations[1]!, shop.migrations[1]!] }),
    ).rejects.toThrow(/appears twice/);
    const { rows } = await db.query("select 1 from information_schema.schemata where schema_name = 'twice'");
    expect(rows).toHaveLength(0);
  });

  it("refuses a database that holds a migration this version does not know", async () => {
    const db = await fresh();
    await migrate(db, shop);
    const older = shop.migrations.filter((m) => m.id === "001_customers");
    await expect(migrate(db, { schema: "shop", migrations: older })).rejects.toThrow(
      /does not know \(002_orders\)/,
    );
  });

  it("keeps two sets in their own schemas", async () => {
    const db = await fresh();
    await migrate(db, shop);
    expect(
      await migrate(db, { schema: "other", migrations: [{ id: "001_customers", sql: "select 1" }] }),
    ).toEqual(["001_customers"]);
  });

  it("serializes concurrent calls on one Db", async () => {
    const db = await fresh();
    const results = await Promise.all([migrate(db, shop), migrate(db, shop), migrate(db, shop)]);
    expect(results.flat().sort()).toEqual(["001_customers", "002_orders"]);
  });
});

describe.runIf(storeBackends().includes("postgres"))("migrate from two processes on one server", () => {
  let main: TestDb | undefined;
  const others: Db[] = [];
  afterEach(async () => {
    await Promise.all(others.splice(0).map((db) => db.close()));
    await main?.close();
  });

  it("lets exactly one of them apply each migration, and neither fails", async () => {
    main = await openTestDb("postgres");
    // Separate pools stand for separate processes: each has its own connections.
    for (let i = 0; i < 3; i++) others.push(await openDb({ databaseUrl: main.url! }));
    const slow: MigrationSet = {
      ...shop,
      // pg_sleep widens the window in which an unlocked second runner would collide.
      migrations: [
        ...shop.migrations,
        { id: "003_slow", sql: "select pg_sleep(0.2); alter table shop.orders add n int" },
      ],
    };
    const results = await Promise.all([main, ...others].map((db) => migrate(db, slow)));
    expect(results.flat().sort()).toEqual(["001_customers", "002_orders", "003_slow"]);
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
  });
});
