// Schema `media` (src/store/media.ts): files kept in chunks, served whole
// only, expired ones removed; on PGlite, and on PostgreSQL when DATABASE_URL is set.

import { beforeAll, describe, expect, it } from "vitest";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { CHUNK_BYTES, MEDIA_MIGRATIONS, MediaStore } from "../../src/store/media.ts";
import { migrate } from "../../src/store/migrate.ts";
import { storeBackends, useStoreDb } from "../helpers/db.ts";

async function* pieces(data: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

describe.each(storeBackends())("media store on %s", (backend) => {
  const db = useStoreDb(backend, (fresh) => migrate(fresh, MEDIA_MIGRATIONS));
  let media: MediaStore;
  beforeAll(async () => {
    media = new MediaStore(db(), ENV_WORKSPACE);
  });

  const now = new Date("2026-01-01T00:00:00Z");
  const later = (h: number) => new Date(now.getTime() + h * 3_600_000);

  it("keeps a file in chunks and gives it back whole, until it expires; then removes it", async () => {
    const data = Buffer.alloc(CHUNK_BYTES * 2 + 12_345);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 251;
    const f = await media.put(
      { name: "big.pdf", contentType: "application/pdf", now, expiresAt: later(72) },
      pieces(data, 70_001),
    );
    expect(f).toMatchObject({ size: data.length, chunks: 3, contentType: "application/pdf" });
    expect(f.id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const got = await media.get(f.id, later(71));
    const parts: Uint8Array[] = [];
    for (let seq = 0; seq < (got?.chunks ?? 0); seq++) parts.push((await media.chunk(f.id, seq))!);
    expect(Buffer.concat(parts).equals(data)).toBe(true);

    expect(await media.get(f.id, later(72))).toBeUndefined();
    expect(await media.chunk(f.id, 0)).toBeUndefined();
  });

  it("a download that fails leaves nothing; expired files go at the next file stored", async () => {
    const before = await media.count();
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield Buffer.alloc(CHUNK_BYTES + 1);
      throw new Error("cut off");
    }
    await expect(
      media.put({ name: "x.png", contentType: "image/png", now, expiresAt: later(1) }, broken()),
    ).rejects.toThrow("cut off");
    expect(await media.count()).toBe(before);

    await media.put(
      { name: "a.png", contentType: "image/png", now, expiresAt: later(1) },
      pieces(Buffer.from("a"), 1),
    );
    await media.put(
      { name: "b.png", contentType: "image/png", now: later(2), expiresAt: later(3) },
      pieces(Buffer.from("b"), 1),
    );
    expect(await media.count()).toBe(before + 1);
  });
});
