import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configSchema, loadConfig, slackMode } from "../src/platform/config.ts";

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

describe("many-workspace mode (many workspaces)", () => {
  const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7 + 1)).toString("base64");
  const manyEnv = {
    SLACK_CLIENT_ID: "1234567890.9876543210",
    SLACK_CLIENT_SECRET: "0123456789abcdef0123456789abcdef",
    SLACK_SIGNING_SECRET: "fedcba9876543210fedcba9876543210",
    SWITCHBOARD_SECRET_KEY: key,
  };

  it("decides the mode: single workspace, many workspaces, or no Slack", () => {
    expect(slackMode(loadConfig({}))).toBe("none");
    expect(slackMode(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1" }))).toBe("single");
    const config = loadConfig(manyEnv);
    expect(slackMode(config)).toBe("many");
    expect(config.UNINSTALL_RETENTION_DAYS).toBe(30);
    expect(loadConfig({ ...manyEnv, UNINSTALL_RETENTION_DAYS: "7" }).UNINSTALL_RETENTION_DAYS).toBe(7);
    // The secret key alone does not make a many-workspace deployment (a single workspace may keep keys encrypted).
    expect(slackMode(loadConfig({ SLACK_BOT_TOKEN: "xoxb-1", SWITCHBOARD_SECRET_KEY: key }))).toBe("single");
  });

  it("refuses a missing setting by name", () => {
    for (const name of Object.keys(manyEnv)) {
      if (name === "SLACK_CLIENT_ID") continue;
      const env: Record<string, string> = { ...manyEnv };
      delete env[name];
      expect(() => loadConfig(env), name).toThrow(new RegExp(`${name}: is required`));
    }
    expect(() => loadConfig({ SLACK_CLIENT_SECRET: "x" })).toThrow(/SLACK_CLIENT_ID: is required/);
  });

  it("needs no SLACK_STATE_SECRET (the install's state is in the database) and still starts with one", () => {
    expect(slackMode(loadConfig(manyEnv))).toBe("many");
    expect(slackMode(loadConfig({ ...manyEnv, SLACK_STATE_SECRET: "an-old-state-secret" }))).toBe("many");
  });

  it("refuses a single bot token or Socket Mode with it, by name", () => {
    expect(() => loadConfig({ ...manyEnv, SLACK_BOT_TOKEN: "xoxb-1" })).toThrow(
      /SLACK_BOT_TOKEN: must be unset/,
    );
    expect(() => loadConfig({ ...manyEnv, SLACK_APP_TOKEN: "xapp-1" })).toThrow(
      /SLACK_APP_TOKEN: must be unset/,
    );
  });

  it("refuses malformed values by name, never echoing a key", () => {
    const bad: Record<string, string> = {
      SLACK_CLIENT_ID: "my-app",
      SWITCHBOARD_SECRET_KEY: "c2VjcmV0LWtleQ==",
      SWITCHBOARD_SECRET_KEY_PREVIOUS: "c2VjcmV0LWtleQ==",
      UNINSTALL_RETENTION_DAYS: "a month",
    };
    for (const [name, value] of Object.entries(bad)) {
      let message = "";
      try {
        loadConfig({ ...manyEnv, [name]: value });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, name).toMatch(new RegExp(`${name}: `));
      if (name.startsWith("SWITCHBOARD_SECRET_KEY")) {
        expect(message).toMatch(/32 random bytes/);
        expect(message).not.toContain(value);
      }
    }
    expect(() => loadConfig({ SWITCHBOARD_SECRET_KEY_PREVIOUS: key })).toThrow(
      /SWITCHBOARD_SECRET_KEY_PREVIOUS: is set without SWITCHBOARD_SECRET_KEY/,
    );
  });
});
