// The phones already seen in an upload, with the row of each: an open-addressing
// hash table in two typed arrays. A Map of 1,000,000 numbers costs about
// 80 MB of heap (a boxed number and an entry each); this costs 12 bytes a slot.

const EMPTY = 0; // E.164 digits are never 0, so 0 marks a free slot.

export class PhoneRows {
  private keys = new Float64Array(1 << 12);
  private rows = new Uint32Array(1 << 12);
  private count = 0;

  /** The row of `phone` (E.164 digits as a number), if seen. */
  get(phone: number): number | undefined {
    const mask = this.keys.length - 1;
    for (let i = hash(phone) & mask; ; i = (i + 1) & mask) {
      const k = this.keys[i]!;
      if (k === phone) return this.rows[i];
      if (k === EMPTY) return undefined;
    }
  }

  set(phone: number, row: number): void {
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    for (let i = hash(phone) & mask; ; i = (i + 1) & mask) {
      const k = this.keys[i]!;
      if (k === EMPTY) {
        this.keys[i] = phone;
        this.rows[i] = row;
        this.count++;
        return;
      }
      if (k === phone) {
        this.rows[i] = row;
        return;
      }
    }
  }

  get size(): number {
    return this.count;
  }

  private grow(): void {
    const { keys, rows } = this;
    this.keys = new Float64Array(keys.length * 2);
    this.rows = new Uint32Array(keys.length * 2);
    this.count = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== EMPTY) this.set(keys[i]!, rows[i]!);
  }
}

/** Mixes the number's low and high bits (phones differ mostly in their last digits). */
function hash(n: number): number {
  const lo = (n % 0x100000000) | 0;
  const hi = (n / 0x100000000) | 0;
  return Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) ^ (lo >>> 15);
}
