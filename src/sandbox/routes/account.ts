import type { SandboxContext } from "../context.ts";
import { HttpError } from "../http.ts";
import type { Handlers } from "../serve.ts";
import * as shape from "../shapes.ts";

export const accountHandlers = (_ctx: SandboxContext) =>
  ({
    // The organization of the key that asks, never another.
    getMe: async ({ req, store }) => {
      const org = await store.account.organization();
      if (!org) throw new HttpError(500, `the sandbox has no organization ${store.org}`);
      return shape.me(org, await store.account.channels(), req.apiKey!);
    },
  }) satisfies Partial<Handlers>;
