import { openDb } from "./src/store/db.ts";
import { migrate } from "./src/store/migrate.ts";
import { sandboxMigrations } from "./src/store/sandbox/migrations.ts";
import { SandboxStore } from "./src/store/sandbox/store.ts";
import { toE164, createContactSchema } from "./src/api/schemas.ts";
const db = await openDb({});
await migrate(db, { schema: "sandbox", migrations: sandboxMigrations });
const store = new SandboxStore(db, () => new Date());
let t = performance.now();
const rowSchema = createContactSchema.omit({ custom_fields: true });
for (let i = 0; i < 100000; i++) rowSchema.safeParse({ phone: `+1628${String(1000000 + i)}`, first_name: "Ana", last_name: "X", email: `u${i}@example.com` });
console.log("zod 100k", Math.round(performance.now() - t));
t = performance.now();
for (let i = 0; i < 100000; i++) toE164(`+1628${String(1000000 + i)}`);
console.log("e164 100k", Math.round(performance.now() - t));
t = performance.now();
await db.transaction(async (tx) => {
  for (let b = 0; b < 50; b++) {
    const batch = [];
    for (let i = 0; i < 2000; i++) { const n = b * 2000 + i; batch.push({ phone: `+1628${1000000 + n}`, first_name: "Ana" + n, last_name: "S", email: `u${n}@example.com`, custom_fields: { loyalty_tier: "gold" } }); }
    await store.importContacts(tx, batch, { updateExisting: false });
  }
});
console.log("sql 100k", Math.round(performance.now() - t));
for (const q of ["%zzz%", "%ana12%"]) {
  const r = await db.query("explain analyze select count(*) from sandbox.contacts c where c.deleted_at is null and c.search_text like $1", [q]);
  console.log(r.rows.map((x: any) => x["QUERY PLAN"]).join("\n"));
  const r2 = await db.query("explain analyze select id from sandbox.contacts c where c.deleted_at is null and c.search_text like $1 order by id desc limit 20", [q]);
  console.log(r2.rows.map((x: any) => x["QUERY PLAN"]).join("\n"));
}
await db.close();
