// src/api/http.ts loads undici's Pool by its path inside the package (not the
// index, which loads far more at start): the path must still be undici's Pool,
// and the FormData of a buffered import must be one that Pool accepts.
import { describe, expect, it } from "vitest";
import { UndiciPool, undiciRequest } from "../../src/api/http.ts";
import { multipartBody } from "../../src/api/multipart.ts";

describe("undici's Pool by path", () => {
  it("is the Pool of undici's index, and request() the one the index gives every dispatcher", async () => {
    const undici = await import("undici");
    expect(UndiciPool).toBe(undici.Pool);
    expect(undiciRequest).toBe(undici.Pool.prototype.request);
  });

  it("takes the FormData of a buffered import as a body", async () => {
    const undici = await import("undici");
    const mp = await multipartBody(
      { filename: "a.csv", body: new TextEncoder().encode("phone\n+14155550100\n"), contentType: "text/csv" },
      { updateExisting: "false" },
    );
    expect(mp.body).toBeInstanceOf(undici.FormData);
    expect(mp.replayable).toBe(true);
  });
});
