// Secrets never reach a log line, at any level, whatever carries them: a field,
// a message string (Bolt joins its arguments into one), an escaped payload.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LogLevel } from "@slack/bolt";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { loadDotEnv, startLine } from "../src/host/start-line.ts";
import { loadConfig } from "../src/platform/config.ts";
import { hideSecrets, redactSecrets, secretsOfConfig } from "../src/platform/log.ts";
import { boltLogger } from "../src/slack/io/bolt-logger.ts";

describe("redactSecrets", () => {
  it("removes Slack's tokens by pattern and the process's secrets by value", () => {
    hideSecrets(
      ...secretsOfConfig({
        MESSAGING_API_KEY: "live_api_key_8f7e6d5c",
        SLACK_SIGNING_SECRET: "signing-secret-1234abcd",
        DATABASE_URL: "postgres://sb:pw%40Secret99@db:5432/sb",
      }),
    );
    const line = JSON.stringify({
      msg: `Received a message on the WebSocket: ${JSON.stringify({
        payload: { token: "verif123456", bot_access_token: "xwfp-1-abcdefgh", event: {} },
      })} text automation add conversation.resolved https://hooks.slack.com/triggers/T0AB/123/9f8e7d6c key live_api_key_8f7e6d5c secret signing-secret-1234abcd pw@Secret99 xoxb-1-2-abcdefgh xapp-1-A0-zyxwvut`,
    });
    const out = redactSecrets(line);
    for (const s of [
      "verif123456",
      "xwfp-1-abcdefgh",
      "live_api_key_8f7e6d5c",
      "signing-secret-1234abcd",
      "pw@Secret99",
      "xoxb-1-2",
      "xapp-1-A0",
      "T0AB/123/9f8e7d6c",
    ])
      expect(out).not.toContain(s);
    expect(out).toContain("Received a message on the WebSocket");
    expect(() => JSON.parse(out)).not.toThrow(); // still a JSON line
  });

  it("is applied to every line of the process's logger, Bolt's debug lines included", () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-log-"));
    const file = join(dir, "log");
    const logger = pino(
      { level: "trace", hooks: { streamWrite: redactSecrets } },
      pino.destination({ dest: file, sync: true }),
    );
    const bolt = boltLogger(logger);
    bolt.setLevel(LogLevel.DEBUG);
    bolt.debug(
      "Received a message on the WebSocket:",
      '{"token":"verif-abcdef12","x":"xoxp-9-secretsecret"}',
    );
    logger.trace({ note: "live_api_key_8f7e6d5c" }, "trace");
    const text = readFileSync(file, "utf8");
    expect(text).not.toMatch(/verif-abcdef12|xoxp-9-secretsecret|live_api_key_8f7e6d5c/);
    expect(text.split("\n").filter(Boolean)).toHaveLength(2);
  });
});

describe(".env and the start line", () => {
  it("reads .env, the environment winning even when empty, and says where each setting came from", () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-env-"));
    const path = join(dir, ".env");
    writeFileSync(path, "SB_TEST_A=file\nSB_TEST_B=file\nSLACK_BOT_TOKEN_SB_TEST=x\n");
    const env: NodeJS.ProcessEnv = process.env;
    env.SB_TEST_A = "env";
    env.SB_TEST_C = "";
    try {
      const source = loadDotEnv(path);
      expect(env.SB_TEST_A).toBe("env");
      expect(env.SB_TEST_B).toBe("file");
      expect([...source.fromFile].sort()).toEqual(["SB_TEST_B", "SLACK_BOT_TOKEN_SB_TEST"]);
    } finally {
      for (const k of ["SB_TEST_A", "SB_TEST_B", "SB_TEST_C", "SLACK_BOT_TOKEN_SB_TEST"]) delete env[k];
    }
    expect(loadDotEnv(join(dir, "none"))).toEqual({ fromFile: new Set() });
  });

  it("names the mode and why: HTTP, Socket Mode or the shell", () => {
    const shell = startLine(loadConfig({}), { fromFile: new Set() });
    expect(shell.fields.mode).toBe("shell");
    expect(shell.message).toContain("the shell (SLACK_BOT_TOKEN is not set)");
    expect(shell.message).toContain("no .env");
    const http = startLine(
      loadConfig({
        SLACK_BOT_TOKEN: "xoxb-1",
        SLACK_SIGNING_SECRET: "s",
        DATABASE_URL: "postgres://u:p@db:5432/sb",
      }),
      { file: "/srv/.env", fromFile: new Set(["SLACK_BOT_TOKEN"]) },
    );
    expect(http.message).toContain(
      "Slack over HTTP on port 3000, one workspace (SLACK_BOT_TOKEN from .env, SLACK_APP_TOKEN not set)",
    );
    expect(http.message).toContain("store: PostgreSQL at db:5432/sb");
    expect(http.message).not.toContain(":p@");
  });
});
