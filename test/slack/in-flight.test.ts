// The listeners' work in flight (src/slack/in-flight.ts): a stop waits for
// it, refuses new work with "restarting" (acknowledged all the same), and runs
// the hand-backs of what is still running after the grace, and only those.
import { describe, expect, it } from "vitest";
import { InFlight, STOPPED_UNKNOWN } from "../../src/slack/in-flight.ts";

describe("InFlight", () => {
  it("hands back what still runs after the grace, and not what finished", async () => {
    const work = new InFlight();
    const settled: string[] = [];
    let finish = () => {};
    const told: unknown[] = [];
    // One import finishes before the stop; its hand-back is unregistered.
    await work.run("import a", undefined, async () => {
      const done = work.onHandBack(async () => settled.push("a"));
      done();
    });
    // Another never finishes: still running at the stop.
    const stuck = work.run(
      "import b",
      async (m) => told.push(m),
      () =>
        new Promise<void>((resolve) => {
          work.onHandBack(async () => settled.push("b"));
          finish = resolve;
        }),
    );
    const drained = await work.drain(0);
    expect(drained).toEqual({ finished: 0, handedBack: ["import b"], settled: 1 });
    expect(settled).toEqual(["b"]);
    // Still running after the grace: told its outcome is unknown, never "try again".
    expect(told).toEqual([expect.objectContaining({ text: STOPPED_UNKNOWN })]);
    finish();
    await stuck;
  });

  it("refuses new work while stopping: acknowledged and told, unless it must run", async () => {
    const work = new InFlight();
    await work.drain(0);
    const calls: string[] = [];
    await work.run(
      "command /sb",
      async () => calls.push("told"),
      async () => void calls.push("ran"),
      {
        refused: async () => void calls.push("acked"),
      },
    );
    await work.run("event function_executed", undefined, async () => void calls.push("step ran"), {
      always: true,
    });
    expect(calls).toEqual(["acked", "told", "step ran"]);
  });
});
