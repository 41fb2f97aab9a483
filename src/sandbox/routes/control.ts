// The sandbox's controls, outside /v1 so the spec's surface stays clean: what
// tests and demos need to make happen that no API operation does: a chat user
// writes in (docs/sandbox.md, "Customers write back"), and a new organization
// is made ("Several organizations").
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { orgStore, type SandboxContext } from "../context.ts";
import { HttpError, notFound, parseWith, pathId } from "../http.ts";
import { createOrganization } from "../organizations.ts";
import * as shape from "../shapes.ts";

export const CONTROL_PATH = "/_sandbox";

const inboundSchema = z
  .strictObject({
    /** The message, or an image's or document's caption. */
    text: z.string().trim().min(1, { error: "must not be empty" }).max(4096).optional(),
    /** The person asks for a human: the chat user's needHuman is set. */
    needHuman: z.boolean().optional(),
    /** An image or a document: its link (any text: a customer's link may be anything) and a document's name. */
    type: z.enum(["text", "image", "document"]).optional(),
    mediaUrl: z.string().min(1).max(4096).optional(),
    fileName: z.string().min(1).max(255).optional(),
  })
  .superRefine((m, ctx) => {
    const media = m.type === "image" || m.type === "document";
    if (media && !m.mediaUrl)
      ctx.addIssue({ code: "custom", path: ["mediaUrl"], message: `is required when type is ${m.type}` });
    if (!media && (m.mediaUrl || m.fileName))
      ctx.addIssue({
        code: "custom",
        path: ["mediaUrl"],
        message: "is only for image and document messages",
      });
    if (!media && !m.text) ctx.addIssue({ code: "custom", path: ["text"], message: "is required" });
  });

const organizationSchema = z.strictObject({
  name: z.string().trim().min(1, { error: "must not be empty" }).max(200).optional(),
  seed: z.enum(["demo", "empty"]).optional(),
});

export async function controlRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  /**
   * POST /_sandbox/organizations { name?, seed? }: a new organization, answered
   * 201 `{ id, name, apiKey, readKey }` (the keys are shown this once). Only
   * the first organization's read-write key (SANDBOX_API_KEY) may ask.
   */
  app.post("/organizations", async (req, reply) => {
    const key = req.apiKey!;
    if (key.orgId !== ctx.firstOrgId || !key.scopes.includes("write")) {
      throw new HttpError(
        403,
        "only the first organization's read-write key (SANDBOX_API_KEY) may create organizations",
      );
    }
    const body = parseWith(organizationSchema, req.body ?? {});
    return reply.code(201).send(await createOrganization(ctx.store, ctx.now(), body));
  });

  /** POST /_sandbox/chat-users/{id}/messages { text, needHuman? }: the key's organization's chat user writes in. */
  app.post<{ Params: { id?: string } }>("/chat-users/:id/messages", async (req, reply) => {
    const store = orgStore(ctx, req);
    const id = pathId(req.params.id, "Chat user");
    const body = parseWith(inboundSchema, req.body ?? {});
    const user = await store.chatUsers.get(id);
    if (!user) throw notFound("Chat user", id);
    const [latest] = await store.conversations.ofChatUsers([id]);
    const conversation = latest ?? (await store.conversations.open(id, user.channel_id ?? 1));
    const row = await store.messages.recordInbound({
      conversationId: conversation.id,
      chatUserId: id,
      channelId: conversation.channel_id,
      text: body.text,
      needHuman: body.needHuman,
      type: body.type,
      mediaUrl: body.mediaUrl,
      fileName: body.fileName,
    });
    return reply.code(201).send(shape.message(row));
  });
}
