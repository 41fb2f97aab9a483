import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configSchema, loadConfig } from "../src/config.ts";

describe("settings", () => {
  const example = readFileSync(new URL("../.env.example", import.meta.url), "utf8");
  const documented = new Set([...example.matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]));

  it("documents every setting in .env.example, and no setting that does not exist", () => {
    const known = Object.keys(configSchema.shape);
    expect([...documented].sort()).toEqual([...known].sort());
  });

  it("documents each setting with a comment above it (pairs may share one)", () => {
    const lines = example.split("\n");
    for (const [i, line] of lines.entries()) {
      if (!/^[A-Z0-9_]+=/.test(line)) continue;
      let j = i - 1;
      while (j >= 0 && /^[A-Z0-9_]+=/.test(lines[j]!)) j--;
      expect(lines[j], `comment above ${line}`).toMatch(/^# [A-Za-z(]/);
    }
  });

  it("runs on its defaults with no setting at all", () => {
    const config = loadConfig({});
    expect(config.MESSAGING_API_URL).toBeUndefined();
    expect(config.DATA_DIR).toBe("./data");
    expect(config.API_READ_LIMIT).toBe(300);
    expect(config.API_WRITE_LIMIT).toBe(60);
  });

  it("treats empty values as unset, as a copied .env.example has them", () => {
    const env = Object.fromEntries([...example.matchAll(/^([A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
    const config = loadConfig(env);
    expect(config.SLACK_BOT_TOKEN).toBeUndefined();
    expect(config.MESSAGING_CHANNEL_ID).toBeUndefined();
    expect(config.SWITCHBOARD_WRITERS).toEqual([]);
  });

  it("names the variable and the rule of a bad value", () => {
    expect(() => loadConfig({ API_READ_LIMIT: "lots" })).toThrow(/API_READ_LIMIT/);
    expect(() => loadConfig({ MESSAGING_API_URL: "not a url" })).toThrow(/MESSAGING_API_URL/);
    expect(() => loadConfig({ DEFAULT_COUNTRY: "usa" })).toThrow(/DEFAULT_COUNTRY/);
    // Whole numbers are decimal digits: not hexadecimal or exponent forms.
    expect(() => loadConfig({ API_READ_LIMIT: "0x10" })).toThrow(/API_READ_LIMIT.*decimal digits/);
    expect(() => loadConfig({ MESSAGING_CHANNEL_ID: "1e1" })).toThrow(/MESSAGING_CHANNEL_ID.*decimal digits/);
    expect(loadConfig({ API_READ_LIMIT: "120" }).API_READ_LIMIT).toBe(120);
    expect(() => loadConfig({ WORKFLOW_STEPS: "some" })).toThrow(
      /WORKFLOW_STEPS: must be off, writers or all/,
    );
    expect(loadConfig({}).WORKFLOW_STEPS).toBe("writers");
  });

  it("reads shares (0 to 1) in plain decimal notation only, as whole numbers", () => {
    expect(() => loadConfig({ BACKGROUND_READ_SHARE: "1e-1" })).toThrow(
      /BACKGROUND_READ_SHARE.*decimal digits/,
    );
    expect(() => loadConfig({ REPORT_FAILURE_ALERT: "0x1" })).toThrow(/REPORT_FAILURE_ALERT.*decimal digits/);
    expect(() => loadConfig({ REPORT_FAILURE_ALERT: "" })).toThrow(/REPORT_FAILURE_ALERT/);
    expect(() => loadConfig({ BACKGROUND_READ_SHARE: "1.5" })).toThrow(/BACKGROUND_READ_SHARE/);
    expect(loadConfig({ BACKGROUND_READ_SHARE: "0.25" }).BACKGROUND_READ_SHARE).toBe(0.25);
    expect(loadConfig({ REPORT_FAILURE_ALERT: ".1" }).REPORT_FAILURE_ALERT).toBe(0.1);
    expect(loadConfig({ REPORT_FAILURE_ALERT: "1" }).REPORT_FAILURE_ALERT).toBe(1);
    expect(loadConfig({}).REPORT_FAILURE_ALERT).toBe(0.05);
  });

  it("splits user and group lists on commas and spaces", () => {
    const config = loadConfig({ SWITCHBOARD_WRITERS: "U123, S456  U789" });
    expect(config.SWITCHBOARD_WRITERS).toEqual(["U123", "S456", "U789"]);
  });
});
