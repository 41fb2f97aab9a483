import { startSandbox } from "./src/sandbox/index.ts";
const sb = await startSandbox({ campaignTickMs: 0, writeLimit: 1000, readLimit: 10000 });
const rows = ["phone,first_name,last_name,email,loyalty_tier"];
const names = ["Ana","Ben","Chloe","Diego","Emma","Farah","George","Hana","Ivan","Julia"];
for (let i = 0; i < 100000; i++) rows.push(`+1628${String(1000000 + i).padStart(7, "0")},${names[i % 10]}${i},Surname${i % 977},user${i}@example.com,gold`);
const csv = rows.join("\n");
const fd = new FormData();
fd.append("updateExisting", "false");
fd.append("file", new Blob([csv], { type: "text/csv" }), "big.csv");
let t = performance.now();
const r = await fetch(sb.url + "/contacts/import", { method: "POST", headers: { "x-api-key": sb.apiKey }, body: fd });
const body = await r.json();
console.log("import", r.status, body.created, body.errors.length, Math.round(performance.now() - t), "ms", "rss", Math.round(process.memoryUsage().rss / 1e6));
for (const q of ["ana12", "surname5", "example", "+162810", "zzz", "an"]) {
  t = performance.now();
  let res;
  for (let i = 0; i < 10; i++) res = await (await fetch(sb.url + "/contacts?search=" + encodeURIComponent(q), { headers: { "x-api-key": sb.apiKey } })).json();
  console.log("search", q, res.meta.total, Math.round((performance.now() - t) / 10), "ms");
}
t = performance.now();
await (await fetch(sb.url + "/contacts?page=3", { headers: { "x-api-key": sb.apiKey } })).json();
console.log("list", Math.round(performance.now() - t));
// big campaign
const g = await (await fetch(sb.url + "/contact-groups", { method: "POST", headers: { "x-api-key": sb.apiKey, "content-type": "application/json" }, body: JSON.stringify({ name: "all" }) })).json();
const fd2 = new FormData(); fd2.append("updateExisting", "true"); fd2.append("groupId", String(g.id)); fd2.append("file", new Blob([csv], { type: "text/csv" }), "big.csv");
t = performance.now();
const r2 = await (await fetch(sb.url + "/contacts/import", { method: "POST", headers: { "x-api-key": sb.apiKey }, body: fd2 })).json();
console.log("reimport update+group", r2.updated, Math.round(performance.now() - t));
const c = await (await fetch(sb.url + "/campaigns", { method: "POST", headers: { "x-api-key": sb.apiKey, "content-type": "application/json" }, body: JSON.stringify({ name: "big", integrationId: 1, templateId: 2, groupIds: [g.id] }) })).json();
t = performance.now();
const s = await (await fetch(sb.url + `/campaigns/${c.id}/send`, { method: "POST", headers: { "x-api-key": sb.apiKey } })).json();
console.log("send", s.stats.total, Math.round(performance.now() - t));
t = performance.now();
for (let i = 0; i < 5; i++) await sb.tick();
console.log("5 ticks", Math.round(performance.now() - t));
await sb.close();
