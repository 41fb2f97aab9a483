// The sandbox serves the operations table (src/api/operations.ts): one route
// per row, its method, path and success status from the row, its path id,
// body and query checked with the row's schemas before the handler runs. A
// handler is keyed by the operation's name, so a missing one fails the type
// check (Handlers), and it gets its input already checked and typed.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { OPERATIONS, type Operation, type OperationName, type OperationOf } from "../api/operations.ts";
import type { OrgStore } from "../store/sandbox/store.ts";
import { badRequest, parseWith, pathId } from "./http.ts";

/**
 * What a handler of operation `O` gets: the data of the organization of the
 * request's key (`store`: the only data it can reach), and the path id, the
 * body and the query its row names, checked.
 */
export type Input<O> = { req: FastifyRequest; store: OrgStore } & (O extends {
  path: `${string}{id}${string}`;
}
  ? { id: number }
  : unknown) &
  (O extends { body: infer S extends z.ZodType } ? { body: z.output<S> } : unknown) &
  (O extends { query: infer S extends z.ZodType } ? { query: z.output<S> } : unknown);

/** A handler answers the record or page to send; the row gives the status. */
export type Handlers = { [K in OperationName]: (input: Input<OperationOf<K>>) => Promise<unknown> };

type Path = (typeof OPERATIONS)[number]["path"];
/** `contacts` of `/contacts/{id}/opt-out`: the paths' record kinds that take an id. */
type RecordPath = Path extends infer P ? (P extends `/${infer S}/{id}${string}` ? S : never) : never;

/** What a path id names, in a 404's words ("Contact 7 was not found"). */
const RECORD_NAMES: Record<RecordPath, string> = {
  messages: "Message",
  conversations: "Conversation",
  contacts: "Contact",
  "contact-fields": "Contact field",
  "contact-groups": "Group",
  tags: "Tag",
  templates: "Template",
  campaigns: "Campaign",
  "chat-users": "Chat user",
};

// An operation whose row names no query takes none: unknown parameters are refused like unknown members.
const noQuery = z.strictObject({});

const isEmpty = (body: unknown) => body === undefined || body === null || Object.keys(body).length === 0;

/** Registers every operation of the table on `app` (mounted under /v1) with its handler. */
export function serveOperations(
  app: FastifyInstance,
  handlers: Handlers,
  storeOf: (req: FastifyRequest) => OrgStore,
): void {
  for (const op of OPERATIONS as readonly Operation[]) {
    const handle = handlers[op.fn as OperationName] as (input: Record<string, unknown>) => Promise<unknown>;
    const record = op.path.includes("{id}") ? RECORD_NAMES[op.path.split("/")[1] as RecordPath] : undefined;
    app.route({
      method: op.method,
      url: op.path.replace("{id}", ":id"),
      handler: async (req, reply) => {
        const input: Record<string, unknown> = { req, store: storeOf(req) };
        if (record) input.id = pathId((req.params as { id?: string }).id, record);
        if (op.body) input.body = parseWith(op.body, req.body);
        else if (!op.form && !isEmpty(req.body))
          throw badRequest(["(body) must be empty: this operation takes no members"]);
        input.query = parseWith(op.query ?? noQuery, req.query);
        return reply.code(op.status).send(await handle(input));
      },
    });
  }
}
