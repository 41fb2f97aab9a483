import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { type BenchRow, runBenchChild } from "./run.ts";
import { runWhenMain } from "./setup.ts";

const FIELDS = [{ key: "loyalty_tier", label: "Loyalty tier", type: "text" }];
const AREAS = ["212", "415", "646", "718", "305", "312"];
const TIERS = ["gold", "silver", "bronze", ""];

/** A contact export as people have them: phones in several forms, one row in a hundred refused. */
export async function writeCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((resolve) => out.once("drain", () => resolve()));
  await write("Phone Number,First Name,Last Name,E-mail Address,Loyalty tier\r\n");
  let batch = "";
  for (let i = 0; i < rows; i++) {
    const area = AREAS[i % AREAS.length]!;
    const n = Math.floor(i / AREAS.length);
    const exchange = String(200 + (Math.floor(n / 10_000) % 700));
    const line = String(n % 10_000).padStart(4, "0");
    let phone: string;
    switch (i % 5) {
      case 0:
        phone = `+1 ${area} ${exchange} ${line}`;
        break;
      case 1:
        phone = `(${area}) ${exchange}-${line}`;
        break;
      case 2:
        phone = `001${area}${exchange}${line}`;
        break;
      case 3:
        phone = `1${area}${exchange}${line}.0`;
        break;
      default:
        phone = `${area}.${exchange}.${line}`;
    }
    if (i % 100 === 99) phone = "4.41234E+11";
    batch += `${phone},First${i},Last${i},user${i}@example.com,${TIERS[i % TIERS.length]}\r\n`;
    if (batch.length > 256 * 1024) {
      await write(batch);
      batch = "";
    }
  }
  await write(batch);
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
}

// ---------------------------------------------------------------- child side

interface ChildResult {
  rows: number;
  ms: number;
  peakRssMb: number;
  detail?: Record<string, unknown>;
}

async function child(mode: string, file: string, sinkUrl?: string): Promise<ChildResult> {
  const started = performance.now();
  let rows = 0;
  let detail: Record<string, unknown> | undefined;
  if (mode === "csv-parse") {
    const { createReadStream } = await import("node:fs");
    const { parse } = await import("csv-parse");
    const parser = createReadStream(file).pipe(parse({ relax_column_count: true }));
    for await (const _ of parser) rows++;
    rows -= 1; // the header
  } else if (mode === "phones") {
    // What any pass must do at least: parse the file and check its phones
    // (libphonenumber-js's parse and isValid, through normalizePhone).
    const { createReadStream } = await import("node:fs");
    const { parse } = await import("csv-parse");
    const { normalizePhone } = await import("../src/imports/phone.ts");
    const parser = createReadStream(file).pipe(parse({ relax_column_count: true, from_line: 2 }));
    let valid = 0;
    for await (const cells of parser as AsyncIterable<string[]>) {
      rows++;
      if (normalizePhone(cells[0] ?? "", "US").ok) valid++;
    }
    detail = { valid };
  } else {
    const { normalizedCsv, previewImport } = await import("../src/imports/index.ts");
    const options = { fields: FIELDS, defaultCountry: "US" };
    const preview = await previewImport(file, options);
    rows = preview.rows;
    detail = { valid: preview.valid, failed: preview.failed };
    if (mode === "normalize" || mode === "flow") {
      const previewMs = performance.now() - started;
      const out = normalizedCsv(file, preview.mapping, options);
      const t = performance.now();
      if (mode === "normalize") {
        let bytes = 0;
        for await (const chunk of out.body) bytes += (chunk as Buffer).length;
        detail = { ...detail, bytes };
      } else {
        const { MessagingClient } = await import("../src/api/client.ts");
        // One call for the whole file: no interactive deadline (under load it takes longer than 20 s).
        const client = new MessagingClient({
          baseUrl: sinkUrl!,
          apiKey: "bench-key",
          timeoutMs: 600_000,
          deadlineMs: 0,
        });
        const result = await client.importContacts(
          { filename: "contacts.csv", contentType: "text/csv", body: out.body },
          { updateExisting: false },
        );
        await client.close();
        detail = { ...detail, created: result.created, previewMs: Math.round(previewMs) };
      }
      const summary = await out.done;
      if (mode === "normalize") {
        // Only the normalizing pass is timed here: the preview is measured on its own.
        return finish(summary.rows, performance.now() - t, { ...detail, written: summary.written });
      }
      detail = { ...detail, written: summary.written };
    }
  }
  return finish(rows, performance.now() - started, detail);
}

function finish(rows: number, ms: number, detail?: Record<string, unknown>): ChildResult {
  // maxRSS is in kilobytes: the peak of this process, sampled by the kernel.
  return { rows, ms, peakRssMb: process.resourceUsage().maxRSS / 1024, detail };
}

// ---------------------------------------------------------------- parent side

/** A stand-in of POST /contacts/import that reads the multipart body and counts its lines. */
function startSink(): Promise<{ server: Server; url: string; received: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    let lines = 0;
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
    });
    req.on("end", () => {
      res.writeHead(201, { "content-type": "application/json" });
      // Multipart framing adds a few lines; the header line is not a contact.
      res.end(JSON.stringify({ created: lines, updated: 0, errors: [] }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        received: () => received,
      }),
    ),
  );
}

function runChild(mode: string, file: string, sinkUrl?: string): Promise<ChildResult> {
  return runBenchChild<ChildResult>(fileURLToPath(import.meta.url), [
    "--child",
    mode,
    file,
    ...(sinkUrl ? [sinkUrl] : []),
  ]);
}

export async function run(rows = 1_000_000): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "import-bench-"));
  const sink = await startSink();
  try {
    const file = join(dir, "contacts.csv");
    await writeCsv(file, rows);
    const mb = (await stat(file)).size / 1024 / 1024;
    const size = `${Math.round(rows / 1000)}k rows, ${mb.toFixed(0)} MB`;
    const bare = await runChild("csv-parse", file);
    const preview = await runChild("preview", file);
    const normalize = await runChild("normalize", file);
    const phones = await runChild("phones", file);
    const flow = await runChild("flow", file, sink.url);
    const perSecond = (r: ChildResult) => Math.round(r.rows / (r.ms / 1000));
    return [
      {
        name: `bare csv-parse (${size})`,
        figure: perSecond(bare),
        unit: "rows/s",
        peakRssMb: round(bare.peakRssMb),
      },
      {
        name: "preview: decode, parse, map, validate",
        figure: perSecond(preview),
        unit: "rows/s",
        baseline: perSecond(bare),
        peakRssMb: round(preview.peakRssMb),
      },
      {
        name: "normalized CSV: parse, validate, normalize, write",
        figure: perSecond(normalize),
        unit: "rows/s",
        baseline: perSecond(bare),
        peakRssMb: round(normalize.peakRssMb),
      },
      {
        name: "floor of both: csv-parse + the phone check alone (libphonenumber-js parse, isValid)",
        figure: perSecond(phones),
        unit: "rows/s",
        baseline: perSecond(bare),
        peakRssMb: round(phones.peakRssMb),
      },
      {
        name: `preview + forwarded import (${flow.detail?.written} rows sent, ${(sink.received() / 1024 / 1024).toFixed(0)} MB multipart)`,
        figure: round(flow.ms / 1000),
        unit: "s",
        peakRssMb: round(flow.peakRssMb),
      },
    ];
  } finally {
    sink.server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const round = (n: number) => Math.round(n * 10) / 10;

runWhenMain(import.meta.url, async ([flag, mode, file, sinkUrl]) => {
  if (flag !== "--child") return run(flag ? Number(flag) : undefined);
  process.stdout.write(`${JSON.stringify(await child(mode!, file!, sinkUrl))}\n`);
});
