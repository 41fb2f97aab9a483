import { describe, expect, it } from "vitest";
import { PhoneRows } from "../../src/imports/phone-set.ts";

describe("PhoneRows", () => {
  it("answers as a Map would, across growth and collisions", () => {
    const set = new PhoneRows();
    const map = new Map<number, number>();
    // E.164 digits of many countries, close together (they differ in the last digits).
    for (let i = 0; i < 50_000; i++) {
      const phone = [14155550000, 447911000000, 34612000000, 4915100000000][i % 4]! + Math.floor(i / 4) * 3;
      set.set(phone, i + 2);
      map.set(phone, i + 2);
    }
    expect(set.size).toBe(map.size);
    for (const [phone, row] of map) {
      expect(set.get(phone)).toBe(row);
      if (!map.has(phone + 1)) expect(set.get(phone + 1)).toBeUndefined();
    }
    set.set(14155550000, 99);
    expect(set.get(14155550000)).toBe(99);
    expect(set.size).toBe(map.size);
  });
});
