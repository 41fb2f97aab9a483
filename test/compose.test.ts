// compose.yaml (three replicas on one PostgreSQL behind a reverse proxy,
// docs/operations.md "Several replicas") agrees with the settings: every
// variable it sets is one .env.example documents and the config reads, the
// replicas share one DATABASE_URL naming the compose file's own PostgreSQL
// (its user, password, database and port), and the proxy sends to each
// replica's PORT.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../src/platform/config.ts";

// biome-ignore lint/suspicious/noExplicitAny: the compose file is read loosely.
type Json = any;

const root = new URL("../", import.meta.url);
const compose: Json = parse(readFileSync(new URL("compose.yaml", root), "utf8"), { merge: true });
const documented = new Set(
  [...readFileSync(new URL(".env.example", root), "utf8").matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map(
    (m) => m[1]!,
  ),
);
const replicas = Object.entries(compose.services as Record<string, Json>).filter(([name]) =>
  name.startsWith("switchboard-"),
);

describe("compose.yaml", () => {
  it("runs three replicas of one definition, each on one database", () => {
    expect(replicas.map(([name]) => name)).toEqual(["switchboard-1", "switchboard-2", "switchboard-3"]);
    const urls = new Set(replicas.map(([, s]) => s.environment.DATABASE_URL));
    expect(urls.size).toBe(1);
  });

  it("sets only settings .env.example documents, with values the config takes", () => {
    for (const [name, s] of replicas) {
      for (const key of Object.keys(s.environment)) expect(documented.has(key), `${name}: ${key}`).toBe(true);
      const config = loadConfig(s.environment);
      expect(config.DATABASE_URL).toBe(s.environment.DATABASE_URL);
      expect(config.PORT).toBe(Number(s.environment.PORT));
    }
  });

  it("points DATABASE_URL at its own PostgreSQL: user, password, database and port", () => {
    const pg = compose.services.postgres;
    const url = new URL(replicas[0]![1].environment.DATABASE_URL);
    expect(url.protocol).toBe("postgres:");
    expect(url.hostname).toBe("postgres");
    expect(url.port).toBe("5432");
    expect(decodeURIComponent(url.username)).toBe(pg.environment.POSTGRES_USER);
    expect(decodeURIComponent(url.password)).toBe(pg.environment.POSTGRES_PASSWORD);
    expect(url.pathname.slice(1)).toBe(pg.environment.POSTGRES_DB);
    for (const [, s] of replicas) expect(s.depends_on.postgres.condition).toBe("service_healthy");
  });

  it("has the proxy send to every replica on its PORT, and checks each replica's readiness on it", () => {
    const args: string[] = compose.services.proxy.command;
    const targets = args.filter((_, i) => args[i - 1] === "--to");
    expect(targets).toEqual(replicas.map(([name, s]) => `${name}:${s.environment.PORT}`));
    for (const [, s] of replicas)
      expect(s.healthcheck.test.join(" ")).toContain(`:${s.environment.PORT}/readyz`);
  });
});
