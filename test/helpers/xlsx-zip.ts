// Hand-built xlsx files for the limits' tests (test/imports/xlsx-bomb.test.ts,
// test/slack/uploads.test.ts): real zips whose parts may declare other sizes
// than they hold, and shared strings that deflate from MBs to KBs.
import { crc32, deflateRawSync } from "node:zlib";

interface Part {
  name: string;
  data: Buffer;
  /** The uncompressed size the zip declares; the real one when not given. */
  declared?: number;
}

/**
 * What a local header (from byte 4) and its central directory entry (from byte 6) both say of a part, in
 * the same order: version 2.0 needed, no flags, deflated, no time, its CRC-32, its sizes, its name's length.
 */
function writeEntry(
  b: Buffer,
  at: number,
  e: { crc: number; packed: number; size: number; nameLength: number },
): void {
  b.writeUInt16LE(20, at);
  b.writeUInt16LE(8, at + 4);
  b.writeUInt32LE(e.crc, at + 10);
  b.writeUInt32LE(e.packed, at + 14);
  b.writeUInt32LE(e.size, at + 18);
  b.writeUInt16LE(e.nameLength, at + 22);
}

/** A zip (deflated parts, sizes in the local headers and the central directory). */
export function zip(parts: Part[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const packed = deflateRawSync(part.data, { level: 9 });
    const crc = crc32(part.data);
    const size = part.declared ?? part.data.length;
    const entry = { crc, packed: packed.length, size, nameLength: name.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeEntry(local, 4, entry);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4); // made by version 2.0
    writeEntry(dir, 6, entry);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    central.push(dir, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const xml = (s: string) => Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${s}`);
const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG = "http://schemas.openxmlformats.org/package/2006/relationships";

/**
 * A workbook: a header (Phone, Name) and `rows` contacts, `columns` cells a
 * row, the names in the shared strings, then `strings` more shared strings of
 * `stringBytes` each ("4,000 strings of 1 MB"). The shared strings come
 * first: exceljs 4.4 loses them when a sheet comes first in a zip whose local
 * headers carry the sizes (a streaming writer's data descriptors are fine).
 */
export function workbook(o: {
  rows?: number;
  columns?: number;
  strings?: number;
  stringBytes?: number;
  declared?: number;
}) {
  const rows = o.rows ?? 3;
  const columns = o.columns ?? 2;
  const names = Array.from({ length: rows }, (_, i) => `Ann${i}`);
  const sheetRows = [`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`];
  for (let i = 0; i < rows; i++) {
    const r = i + 2;
    let cells = `<c r="A${r}"><v>1212555${String(1000 + i).padStart(4, "0")}</v></c><c r="B${r}" t="s"><v>${i + 2}</v></c>`;
    for (let c = 2; c < columns; c++) cells += `<c r="${letter(c)}${r}" t="inlineStr"><is><t>x</t></is></c>`;
    sheetRows.push(`<row r="${r}">${cells}</row>`);
  }
  const filler = "A".repeat(o.stringBytes ?? 0);
  const extra = `<si><t>${filler}</t></si>`.repeat(o.strings ?? 0);
  const count = 2 + rows + (o.strings ?? 0);
  return zip([
    {
      name: "[Content_Types].xml",
      data: xml(
        `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
      ),
    },
    {
      name: "_rels/.rels",
      data: xml(
        `<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
    },
    {
      name: "xl/workbook.xml",
      data: xml(
        `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="Contacts" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ),
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: xml(
        `<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
      ),
    },
    {
      name: "xl/sharedStrings.xml",
      data: xml(
        `<sst xmlns="${MAIN}" count="${count}" uniqueCount="${count}"><si><t>Phone</t></si><si><t>Name</t></si>${names.map((n) => `<si><t>${n}</t></si>`).join("")}${extra}</sst>`,
      ),
      declared: o.declared,
    },
    {
      name: "xl/worksheets/sheet1.xml",
      data: xml(`<worksheet xmlns="${MAIN}"><sheetData>${sheetRows.join("")}</sheetData></worksheet>`),
    },
  ]);
}

function letter(index: number): string {
  let n = index + 1;
  let s = "";
  while (n > 0) {
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}
