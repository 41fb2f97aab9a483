import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { SandboxContext } from "../app.ts";
import { HttpError, parseWith } from "../http.ts";
import * as shape from "../shapes.ts";

export async function accountRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  app.get("/me", async (req) => {
    parseWith(z.strictObject({}), req.query);
    const org = await ctx.store.account.organization();
    if (!org) throw new HttpError(500, "the sandbox has no organization");
    return shape.me(org, await ctx.store.account.channels(), req.apiKey!);
  });
}
