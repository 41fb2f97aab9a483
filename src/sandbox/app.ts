// The sandbox's Fastify app: JSON and multipart parsing, the API key (looked
// up by its hash: the key names its organization) and its scopes, per-key rate
// limits, NestJS-style error bodies, and under /v1 the operations table served
// (serve.ts) with one handler per operation (routes/), each seeing only the
// data of its key's organization.
import multipart from "@fastify/multipart";
import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { type Scope, scopeOf } from "../api/operations.ts";
import { hashKey } from "../store/sandbox/account.ts";
import { DuplicateError } from "../store/sandbox/errors.ts";
import { type ApiKey, orgStore, type SandboxContext } from "./context.ts";
import { badRequest, HttpError, reasonOf } from "./http.ts";
import { RateLimiter } from "./rate-limit.ts";
import { accountHandlers } from "./routes/account.ts";
import { campaignHandlers } from "./routes/campaigns.ts";
import { catalogHandlers } from "./routes/catalog.ts";
import { contactHandlers } from "./routes/contacts.ts";
import { CONTROL_PATH, controlRoutes } from "./routes/control.ts";
import { conversationHandlers } from "./routes/conversations.ts";
import { templateHandlers } from "./routes/templates.ts";
import { type Handlers, serveOperations } from "./serve.ts";

export const BASE_PATH = "/v1";

/** Fastify's schema compilers, which the sandbox never needs: a route schema is a mistake here. */
const noRouteSchemas = (): never => {
  throw new Error("the sandbox's routes check their input with zod (src/sandbox/http.ts): no route schemas");
};

export async function buildApp(
  ctx: SandboxContext,
  opts: { readLimit: number; writeLimit: number; logger: Logger | false },
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger || undefined,
    logger: opts.logger ? undefined : false,
    bodyLimit: 5 * 1024 * 1024,
    // The routes check their input with zod (./http.ts) and declare no JSON
    // schema: without these, Fastify loads and sets up Ajv and
    // fast-json-stringify on every start for nothing (~50 ms of CPU, docs/memory.md).
    schemaController: {
      compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas },
    },
  }) as unknown as FastifyInstance;
  const limiter = new RateLimiter({ read: opts.readLimit, write: opts.writeLimit }, () =>
    ctx.now().getTime(),
  );
  // Keys by hash, read from the database on first use. Keys are never revoked
  // while the sandbox runs (startSandbox sets the first organization's before it
  // listens), so a key once found stays valid; one made by another process on
  // the same database is found on its first request.
  const keys = new Map<string, Omit<ApiKey, "secret">>();
  const keyOf = async (secret: string): Promise<ApiKey | undefined> => {
    const keyHash = hashKey(secret);
    let key = keys.get(keyHash);
    if (!key) {
      const row = await ctx.store.account.keyByHash(keyHash);
      if (!row) return undefined;
      key = {
        id: row.id,
        orgId: row.org_id,
        name: row.name,
        scopes: row.scopes as Scope[],
      };
      keys.set(keyHash, key);
    }
    return { ...key, secret };
  };
  app.decorateRequest("apiKey", null);

  // An empty body is "no body" (POST /contacts/{id}/opt-out has none), not a JSON error.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(badRequest(["(body) must be valid JSON"]), undefined);
    }
  });
  await app.register(multipart, { limits: { fileSize: ctx.importMaxBytes, files: 1, fields: 10 } });

  app.addHook("onRequest", async (req, reply) => {
    const header = req.headers["x-api-key"];
    const secret = Array.isArray(header) ? header[0] : header;
    if (!secret) throw new HttpError(401, "the X-API-Key header is required");
    const key = await keyOf(secret);
    if (!key) throw new HttpError(401, "the API key is not valid");
    const scope = scopeOf((req.method === "HEAD" ? "GET" : req.method) as "GET");
    if (!key.scopes.includes(scope)) {
      throw new HttpError(403, `this API key lacks the ${scope} scope that ${req.method} requests need`);
    }
    // The sandbox's own controls (outside /v1) are not the API: no rate limit.
    if (req.url.startsWith(CONTROL_PATH)) {
      req.apiKey = key;
      return;
    }
    const d = limiter.hit(String(key.id), scope);
    reply.header("X-RateLimit-Limit", d.limit);
    reply.header("X-RateLimit-Remaining", d.remaining);
    reply.header("X-RateLimit-Reset", d.resetSeconds);
    if (!d.allowed) {
      throw new HttpError(
        429,
        `rate limit of ${d.limit} ${scope} requests a minute for this API key exceeded; retry in ${d.resetSeconds} s`,
        { "Retry-After": String(d.resetSeconds) },
      );
    }
    req.apiKey = key;
  });

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof HttpError) {
      return reply.code(err.statusCode).headers(err.headers).send(err.body);
    }
    if (err instanceof DuplicateError) {
      return reply
        .code(409)
        .send({ statusCode: 409, message: `${err.field}: ${err.message}`, error: reasonOf(409) });
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) {
      const message = err instanceof Error ? err.message : String(err);
      return reply
        .code(status)
        .send({ statusCode: status, message: status === 400 ? [message] : message, error: reasonOf(status) });
    }
    req.log.error({ err }, "sandbox request failed");
    return reply.code(500).send({ statusCode: 500, message: "Internal server error", error: reasonOf(500) });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({
      statusCode: 404,
      message: `Cannot ${req.method} ${req.url.split("?")[0]}`,
      error: reasonOf(404),
    });
  });

  // One handler per operation of the table, by name: a missing one fails the type check.
  const handlers: Handlers = {
    ...accountHandlers(ctx),
    ...contactHandlers(ctx),
    ...catalogHandlers(ctx),
    ...templateHandlers(ctx),
    ...conversationHandlers(ctx),
    ...campaignHandlers(ctx),
  };
  await app.register(async (v1) => serveOperations(v1, handlers, (req) => orgStore(ctx, req)), {
    prefix: BASE_PATH,
  });
  await app.register(async (control) => controlRoutes(control, ctx), { prefix: CONTROL_PATH });
  return app;
}
