// A template message as the customer read it (issue 39 §2): the API's record
// of an outgoing template message may have no text, only the template's name
// and values, so the thread would say "(template message)". Its text is the
// template's body filled with those values, by the one filler
// (fillPlaceholders, the campaign's message's too).
//
// Bounded reads: the templates are read as one list (the spec gives them no
// paging), only when a template message needs its text, and kept for
// TEMPLATES_FRESH_MS; a name not in the list read it again at most once a
// minute. A pass with no template message reads nothing.
import { messageTemplate } from "../api/inbox.ts";
import { fillPlaceholders } from "../api/schemas.ts";
import type { Message } from "../api/types.ts";
import type { PassContext } from "./context.ts";

/** How long the templates' list read serves (templates change rarely; an edit shows after this). */
export const TEMPLATES_FRESH_MS = 10 * 60_000;
/** A template not in the list: read again no sooner than this. */
const MISS_AGAIN_MS = 60_000;

const keyOf = (name: string, language?: string) => `${name}\u0000${language ?? ""}`;

export class TemplateTexts {
  private bodies: Map<string, string> | undefined;
  private readAt = 0;
  private readonly ctx: Pick<PassContext, "client" | "read" | "now">;

  constructor(ctx: Pick<PassContext, "client" | "read" | "now">) {
    this.ctx = ctx;
  }

  /**
   * The message to show: a template message without text gets the
   * template's body filled with its values; any other message as it is. A
   * template it cannot read leaves the message as it is.
   */
  async shown(m: Message): Promise<Message> {
    if (m.type !== "template" || (typeof m.text === "string" && m.text.trim())) return m;
    const t = messageTemplate(m);
    if (!t) return m;
    const body = await this.body(t.name, t.language).catch(() => undefined);
    return body ? { ...m, text: fillPlaceholders(body, t.parameters) } : m;
  }

  private async body(name: string, language?: string): Promise<string | undefined> {
    const age = this.ctx.now().getTime() - this.readAt;
    const find = () => this.bodies?.get(keyOf(name, language)) ?? this.bodies?.get(keyOf(name));
    if (this.bodies && age < TEMPLATES_FRESH_MS && (find() !== undefined || age < MISS_AGAIN_MS))
      return find();
    const page = await this.ctx.read(this.ctx.client.listTemplates());
    const bodies = new Map<string, string>();
    for (const tpl of page.items) {
      if (typeof tpl.name !== "string" || typeof tpl.bodyText !== "string") continue;
      bodies.set(keyOf(tpl.name, tpl.language), tpl.bodyText);
      // A record with no language: the name alone finds it.
      if (!bodies.has(keyOf(tpl.name))) bodies.set(keyOf(tpl.name), tpl.bodyText);
    }
    this.bodies = bodies;
    this.readAt = this.ctx.now().getTime();
    return find();
  }
}
