// `/sb report now`: a person asked, so every request goes in the client's
// interactive lane, ahead of background work (issue 9). Each call is recorded
// on its way to the real client and the sandbox.
import { describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import type { MessagingApi } from "../../src/api/types.ts";
import { reportNow } from "../../src/reports/scheduler.ts";
import { withSandbox } from "../helpers/sandbox.ts";

const sandbox = withSandbox({ campaignTickMs: 0, readLimit: 100_000, writeLimit: 10_000 });

/** The real client, with the lane of each call written down. */
function recordingLanes(api: MessagingApi, lanes: string[]): MessagingApi {
  return new Proxy(api, {
    get(target, prop) {
      // The getter runs on the client itself: its operations are made at their first read, on the client.
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const opts = args.find(
          (a): a is { lane?: string } => typeof a === "object" && a !== null && "lane" in (a as object),
        );
        lanes.push(`${String(prop)}:${opts?.lane ?? "default"}`);
        return value.apply(target, args);
      };
    },
  });
}

describe("report now", () => {
  it("asks the API at people's priority, for every campaign", async () => {
    const client = new MessagingClient({ baseUrl: sandbox().url, apiKey: sandbox().apiKey });
    const lanes: string[] = [];
    const messages = await reportNow(recordingLanes(client, lanes), "all", {
      tz: "UTC",
      failureAlert: 0.2,
      chart: false,
    });
    expect(messages.length).toBeGreaterThan(0);
    expect(lanes.length).toBeGreaterThan(1);
    expect(lanes.filter((l) => !l.endsWith(":interactive"))).toEqual([]);
    await client.close();
  });
});
