// The paced loop under the inbox poller and the progress tracker: passes
// never overlap, wake() brings the next pass forward, stop() ends the loop.
// Driven by events (a pass resolves a promise), not by time.
import { describe, expect, it, vi } from "vitest";
import { PacedLoop } from "../../src/platform/paced-loop.ts";

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("paced loop", () => {
  it("runs manual passes one after another, never two at once", async () => {
    let inside = 0;
    let most = 0;
    const gate = deferred();
    const loop = new PacedLoop({
      pass: async () => {
        inside++;
        most = Math.max(most, inside);
        await gate.promise;
        inside--;
        return inside;
      },
      next: async () => undefined,
      onError: () => {},
    });
    const a = loop.step();
    const b = loop.step();
    gate.resolve();
    await Promise.all([a, b]);
    expect(most).toBe(1);
  });

  it("starts with a pass, sleeps when there is nothing due, wakes on wake(), stops on stop()", async () => {
    let passes = 0;
    let waiting = deferred();
    const errors: unknown[] = [];
    const loop = new PacedLoop({
      pass: async () => {
        passes++;
        waiting.resolve();
        if (passes === 2) throw new Error("second pass fails");
        return passes;
      },
      next: async () => undefined,
      onError: (err) => errors.push(err),
    });
    loop.wake(); // not started: nothing
    loop.start();
    await waiting.promise;
    expect(passes).toBe(1);
    waiting = deferred();
    loop.wake();
    await waiting.promise;
    expect(passes).toBe(2);
    await loop.stop();
    expect(errors.map((e) => (e as Error).message)).toEqual(["second pass fails"]);
    loop.wake(); // stopped: nothing
    expect(await loop.step()).toBe(3); // a manual pass still runs
  });
  it("a wake() that comes while the next delay is read is not overwritten by that delay", async () => {
    let passes = 0;
    let passed = deferred();
    const asked = deferred();
    const answer = deferred<number>();
    const loop = new PacedLoop({
      pass: async () => {
        passes++;
        passed.resolve();
        return passes;
      },
      next: async () => {
        asked.resolve();
        return answer.promise;
      },
      onError: () => {},
    });
    loop.start();
    await passed.promise;
    await asked.promise;
    // Woken while the loop reads its next delay (an hour): the pass comes now, not in an hour.
    passed = deferred();
    loop.wake();
    answer.resolve(3_600_000);
    await passed.promise;
    expect(passes).toBe(2);
    await loop.stop();
  });

  it("a stop() that comes while the next delay is read is not overwritten by that delay", async () => {
    // The loop's timers on a fake clock, so that "no pass will come" can be read off it.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let passes = 0;
      const asked = deferred();
      const answer = deferred<number>();
      const loop = new PacedLoop({
        pass: async () => {
          passes++;
          return passes;
        },
        next: async () => {
          asked.resolve();
          return answer.promise;
        },
        onError: () => {},
      });
      loop.start();
      vi.advanceTimersToNextTimer(); // the first pass, at once
      await asked.promise;
      expect(passes).toBe(1);
      // Stopped while the loop reads its next delay (none: at once).
      const stopped = loop.stop();
      answer.resolve(0);
      await stopped;
      // What the loop does after reading the delay needs no I/O, only promise callbacks: once
      // they have all run (setImmediate runs only then), a pass to come would be a timer.
      await new Promise((r) => setImmediate(r));
      expect(vi.getTimerCount()).toBe(0);
      vi.runAllTimers();
      expect(passes).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
