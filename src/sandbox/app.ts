// The sandbox's Fastify app: JSON and multipart parsing, the API key and its
// scopes, per-key rate limits, NestJS-style error bodies, and the routes under /v1.
import multipart from "@fastify/multipart";
import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { type Scope, scopeOf } from "../api/operations.ts";
import { DuplicateError } from "../store/sandbox/errors.ts";
import type { SandboxStore } from "../store/sandbox/store.ts";
import { badRequest, HttpError, reasonOf } from "./http.ts";
import { RateLimiter } from "./rate-limit.ts";
import { accountRoutes } from "./routes/account.ts";
import { campaignRoutes } from "./routes/campaigns.ts";
import { catalogRoutes } from "./routes/catalog.ts";
import { contactRoutes } from "./routes/contacts.ts";
import { CONTROL_PATH, controlRoutes } from "./routes/control.ts";
import { conversationRoutes } from "./routes/conversations.ts";
import { templateRoutes } from "./routes/templates.ts";

export interface ApiKey {
  name: string;
  secret: string;
  scopes: Scope[];
}

export interface SandboxContext {
  store: SandboxStore;
  now: () => Date;
  templateApprovalMs: number;
  importMaxBytes: number;
}

declare module "fastify" {
  interface FastifyRequest {
    apiKey?: ApiKey;
  }
}

export const BASE_PATH = "/v1";

/** Fastify's schema compilers, which the sandbox never needs: a route schema is a mistake here. */
const noRouteSchemas = (): never => {
  throw new Error("the sandbox's routes check their input with zod (src/sandbox/http.ts): no route schemas");
};

export async function buildApp(
  ctx: SandboxContext,
  opts: { keys: ApiKey[]; readLimit: number; writeLimit: number; logger: Logger | false },
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
  const keys = new Map(opts.keys.map((k) => [k.secret, k]));

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
    const key = keys.get(secret);
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
    const d = limiter.hit(secret, scope);
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

  await app.register(
    async (v1) => {
      await accountRoutes(v1, ctx);
      await contactRoutes(v1, ctx);
      await catalogRoutes(v1, ctx);
      await templateRoutes(v1, ctx);
      await conversationRoutes(v1, ctx);
      await campaignRoutes(v1, ctx);
    },
    { prefix: BASE_PATH },
  );
  await app.register(async (control) => controlRoutes(control, ctx), { prefix: CONTROL_PATH });
  return app;
}
