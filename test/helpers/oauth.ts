// "Add to Slack" on loopback, as the OAuth tests use it: the fake Slack (its
// consent and oauth.v2.access), a fresh migrated database with the sealed
// installations' store and its TokenSource, and the install routes of
// src/slack/tenancy/oauth.ts served on 127.0.0.1 (`base`).
//   const h = await startOAuthLoopback({ logger });   ...   await h.close();
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../../src/platform/log.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { boltLogger } from "../../src/slack/io/bolt-logger.ts";
import { createOAuth, manifestScopes, type OAuth } from "../../src/slack/tenancy/oauth.ts";
import { TokenSource } from "../../src/slack/tenancy/tokens.ts";
import { Installations } from "../../src/store/installations.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { FakeSlack } from "../fakes/slack.ts";
import { openTestDb, type TestDb } from "./db.ts";

export interface OAuthLoopback {
  fake: FakeSlack;
  db: TestDb;
  store: Installations;
  oauth: OAuth;
  /** The install routes' address: `${base}/slack/install`, `${base}/slack/oauth_redirect`. */
  base: string;
  close(): Promise<void>;
}

export async function startOAuthLoopback(opts: {
  /** The installer's logger (given to Bolt's OAuth as its logger). */
  logger: Logger;
  /** Told every request's URL before it is routed. */
  onRequest?: (url: string) => void;
}): Promise<OAuthLoopback> {
  const [fake, db] = await Promise.all([FakeSlack.start(), openTestDb()]);
  await migrateStore(db);
  const store = await Installations.open(db, new Keyring(randomBytes(32)));
  let oauth: OAuth | undefined;
  let base = "";
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", base).pathname;
    opts.onRequest?.(req.url ?? "");
    const route = oauth?.routes.find((r) => r.path === path);
    if (route) route.handler(req as never, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  oauth = createOAuth({
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    db,
    installations: store,
    tokens: new TokenSource({
      installations: store,
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
      slackApiUrl: fake.apiUrl,
    }),
    scopes: manifestScopes(),
    slackApiUrl: fake.apiUrl,
    redirectUri: `${base}/slack/oauth_redirect`,
    authorizationUrl: `${fake.url}/oauth/v2/authorize`,
    logger: boltLogger(opts.logger),
  });
  return {
    fake,
    db,
    store,
    oauth,
    base,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await fake.close();
      await db.close();
    },
  };
}
