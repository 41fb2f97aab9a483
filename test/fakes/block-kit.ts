// The Block Kit rules Slack enforces, as the fake Slack checks them. Each
// problem is reported the way Slack words it in response_metadata.messages:
// `[ERROR] <rule> [json-pointer:/blocks/3/text/text]`, so a failing test
// points at the offending member. Limits: https://docs.slack.dev/reference/block-kit
type Json = Record<string, unknown>;

export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  actionId: 255,
  blockId: 255,
  imageAltText: 2000,
  inputLabel: 2000,
  markdownText: 12000,
  modalTitle: 24,
  modalButton: 24,
  privateMetadata: 3000,
  callbackId: 255,
  messageText: 40000,
  optionText: 75,
  options: 100,
} as const;

const BLOCK_TYPES = new Set([
  "section",
  "header",
  "divider",
  "actions",
  "context",
  "image",
  "input",
  "rich_text",
  "markdown",
  "file",
  "video",
]);

const INTERACTIVE = new Set([
  "button",
  "static_select",
  "external_select",
  "users_select",
  "conversations_select",
  "channels_select",
  "multi_static_select",
  "multi_external_select",
  "multi_users_select",
  "multi_conversations_select",
  "multi_channels_select",
  "overflow",
  "datepicker",
  "timepicker",
  "datetimepicker",
  "checkboxes",
  "radio_buttons",
  "plain_text_input",
  "email_text_input",
  "number_input",
  "url_text_input",
  "file_input",
  "rich_text_input",
]);

class Checker {
  readonly errors: string[] = [];
  private readonly blockIds = new Set<string>();
  private readonly actionIds = new Set<string>();

  private readonly surface: "message" | "modal" | "home";
  constructor(surface: "message" | "modal" | "home") {
    this.surface = surface;
  }

  fail(pointer: string, rule: string) {
    this.errors.push(`[ERROR] ${rule} [json-pointer:${pointer}]`);
  }

  text(obj: unknown, pointer: string, opts: { max: number; plainOnly?: boolean; required?: boolean }) {
    if (obj === undefined || obj === null) {
      if (opts.required !== false) this.fail(pointer, "missing required field: text");
      return;
    }
    if (typeof obj !== "object") return this.fail(pointer, "must be a text object");
    const t = obj as Json;
    if (t.type !== "plain_text" && t.type !== "mrkdwn")
      return this.fail(`${pointer}/type`, "must be a valid enum value");
    if (opts.plainOnly && t.type !== "plain_text") return this.fail(`${pointer}/type`, "must be plain_text");
    if (typeof t.text !== "string") return this.fail(`${pointer}/text`, "must be a string");
    if (t.text.length === 0) this.fail(`${pointer}/text`, "must be more than 0 characters");
    if (t.text.length > opts.max)
      this.fail(`${pointer}/text`, `must be less than ${opts.max + 1} characters`);
  }

  maxLen(value: unknown, max: number, pointer: string) {
    if (typeof value === "string" && value.length > max)
      this.fail(pointer, `must be less than ${max + 1} characters`);
  }

  element(el: unknown, pointer: string) {
    if (!el || typeof el !== "object") return this.fail(pointer, "must be an element object");
    const e = el as Json;
    const type = String(e.type);
    if (type === "image") {
      if (typeof e.alt_text !== "string")
        this.fail(`${pointer}/alt_text`, "missing required field: alt_text");
      this.maxLen(e.alt_text, LIMITS.imageAltText, `${pointer}/alt_text`);
      return;
    }
    if (type === "plain_text" || type === "mrkdwn") return this.text(e, pointer, { max: LIMITS.sectionText });
    if (!INTERACTIVE.has(type)) return this.fail(`${pointer}/type`, `unsupported element type: ${type}`);
    if (e.action_id !== undefined)
      this.usedOnce(e.action_id, "action_id", pointer, LIMITS.actionId, this.actionIds);
    if (type === "button") {
      this.text(e.text, `${pointer}/text`, { max: LIMITS.buttonText, plainOnly: true });
      this.maxLen(e.value, LIMITS.buttonValue, `${pointer}/value`);
      this.maxLen(e.url, LIMITS.url, `${pointer}/url`);
      if (e.style !== undefined && e.style !== "primary" && e.style !== "danger")
        this.fail(`${pointer}/style`, "must be a valid enum value");
    }
    if (Array.isArray(e.options)) {
      if (e.options.length > LIMITS.options)
        this.fail(`${pointer}/options`, `must be less than ${LIMITS.options + 1} items`);
      e.options.forEach((o, i) => {
        this.text((o as Json)?.text, `${pointer}/options/${i}/text`, { max: LIMITS.optionText });
      });
    }
  }

  /** An id (`action_id`, `block_id`) no longer than `max` and not used before in the payload (`seen`). */
  usedOnce(raw: unknown, field: string, pointer: string, max: number, seen: Set<string>) {
    const id = String(raw);
    this.maxLen(id, max, `${pointer}/${field}`);
    if (seen.has(id)) this.fail(`${pointer}/${field}`, `duplicate ${field}: ${id}`);
    seen.add(id);
  }

  block(b: unknown, i: number, base: string) {
    const pointer = `${base}/${i}`;
    if (!b || typeof b !== "object") return this.fail(pointer, "must be a block object");
    const block = b as Json;
    const type = String(block.type);
    if (!BLOCK_TYPES.has(type)) return this.fail(`${pointer}/type`, `unsupported block type: ${type}`);
    if (block.block_id !== undefined)
      this.usedOnce(block.block_id, "block_id", pointer, LIMITS.blockId, this.blockIds);
    switch (type) {
      case "section": {
        if (block.text === undefined && block.fields === undefined)
          this.fail(pointer, "must provide either text or fields");
        if (block.text !== undefined) this.text(block.text, `${pointer}/text`, { max: LIMITS.sectionText });
        if (block.fields !== undefined) {
          if (!Array.isArray(block.fields)) return this.fail(`${pointer}/fields`, "must be an array");
          if (block.fields.length > LIMITS.sectionFields)
            this.fail(`${pointer}/fields`, `must be less than ${LIMITS.sectionFields + 1} items`);
          block.fields.forEach((f, j) => {
            this.text(f, `${pointer}/fields/${j}`, { max: LIMITS.sectionFieldText });
          });
        }
        if (block.accessory !== undefined) this.element(block.accessory, `${pointer}/accessory`);
        break;
      }
      case "header":
        this.text(block.text, `${pointer}/text`, { max: LIMITS.headerText, plainOnly: true });
        break;
      case "context":
      case "actions": {
        const max = type === "context" ? LIMITS.contextElements : LIMITS.actionsElements;
        if (!Array.isArray(block.elements) || block.elements.length === 0)
          return this.fail(`${pointer}/elements`, "must be a non-empty array");
        if (block.elements.length > max)
          this.fail(`${pointer}/elements`, `must be less than ${max + 1} items`);
        block.elements.forEach((e, j) => {
          this.element(e, `${pointer}/elements/${j}`);
        });
        break;
      }
      case "image": {
        if (typeof block.alt_text !== "string")
          this.fail(`${pointer}/alt_text`, "missing required field: alt_text");
        // Slack: a public image_url, or a file of the app's (slack_file with its id or url).
        const file = block.slack_file as { id?: unknown; url?: unknown } | undefined;
        if (
          typeof block.image_url !== "string" &&
          !(file && (typeof file.id === "string" || typeof file.url === "string"))
        )
          this.fail(pointer, "must provide either image_url or slack_file");
        this.maxLen(block.alt_text, LIMITS.imageAltText, `${pointer}/alt_text`);
        break;
      }
      case "input":
        if (this.surface === "message") this.fail(pointer, "input blocks are not allowed in messages");
        this.text(block.label, `${pointer}/label`, { max: LIMITS.inputLabel, plainOnly: true });
        if (!block.element) this.fail(`${pointer}/element`, "missing required field: element");
        else this.element(block.element, `${pointer}/element`);
        break;
      case "markdown":
        if (typeof block.text !== "string") this.fail(`${pointer}/text`, "missing required field: text");
        this.maxLen(block.text, LIMITS.markdownText, `${pointer}/text`);
        break;
    }
  }

  blocks(blocks: unknown, base: string, max: number) {
    if (!Array.isArray(blocks)) return this.fail(base, "must be an array");
    if (blocks.length > max) this.fail(base, `must be less than ${max + 1} items`);
    blocks.forEach((b, i) => {
      this.block(b, i, base);
    });
  }
}

/** Problems in the blocks of a message (chat.postMessage, chat.update, response_url). */
export function checkMessageBlocks(blocks: unknown): string[] {
  const c = new Checker("message");
  c.blocks(blocks, "/blocks", LIMITS.messageBlocks);
  return c.errors;
}

/** Problems in a view (views.open, views.push, views.update, views.publish). */
export function checkView(view: unknown): string[] {
  if (!view || typeof view !== "object") return ["[ERROR] must be a view object [json-pointer:/view]"];
  const v = view as Json;
  const surface = v.type === "modal" ? "modal" : v.type === "home" ? "home" : undefined;
  if (!surface) return ["[ERROR] must be a valid enum value [json-pointer:/view/type]"];
  const c = new Checker(surface);
  if (surface === "modal") {
    c.text(v.title, "/view/title", { max: LIMITS.modalTitle, plainOnly: true });
    if (v.submit !== undefined)
      c.text(v.submit, "/view/submit", { max: LIMITS.modalButton, plainOnly: true });
    if (v.close !== undefined) c.text(v.close, "/view/close", { max: LIMITS.modalButton, plainOnly: true });
    const hasInput = Array.isArray(v.blocks) && v.blocks.some((b) => (b as Json)?.type === "input");
    if (hasInput && v.submit === undefined)
      c.fail("/view/submit", "submit is required when a view has input blocks");
  }
  c.maxLen(v.private_metadata, LIMITS.privateMetadata, "/view/private_metadata");
  c.maxLen(v.callback_id, LIMITS.callbackId, "/view/callback_id");
  c.blocks(v.blocks, "/view/blocks", LIMITS.viewBlocks);
  return c.errors;
}
