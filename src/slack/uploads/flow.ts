// An upload from Slack becomes a contact import in two steps. Preview: the
// file is downloaded once into a temporary file (hashing it on the way), read
// as the import will read it, and a preview with controls is posted in its
// thread; the pending import is stored under file id + content hash, so a
// second delivery of the same upload stops there. Import: the first click
// moves it from pending to running (once), the file is downloaded again and
// streamed through normalizedCsv into POST /contacts/import, and the outcome
// (with an errors CSV) is posted in the thread.
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { webApi } from "@slack/bolt";
import type { ApiRecord, ImportResult } from "../../api/types.ts";
import { esc, num } from "../../blocks/blocks.ts";
import { contactFields } from "../../commands/lookups.ts";
import type { Actor } from "../../commands/types.ts";
import {
  type ColumnMapping,
  type ErrorLine,
  errorsCsv,
  type FieldDefinition,
  ImportFileError,
  MappingError,
  normalizedCsv,
  normalizedFileName,
  previewImport,
} from "../../imports/index.ts";
import {
  claimPendingImport,
  createPendingImport,
  discardPendingImport,
  finishPendingImport,
  getPendingImport,
  type PendingImport,
  updatePendingImport,
} from "../../store/imports.ts";
import { slackError } from "../deliver.ts";
import type { SlackDeps } from "../deps.ts";
import { withApi } from "../perform.ts";
import {
  checkFile,
  downloadFile,
  fileInfo,
  isImportable,
  type SlackFile,
  UploadRefused,
} from "./download.ts";
import {
  closedMessage,
  newGroupName,
  type PreviewSummary,
  previewMessage,
  progressMessage,
  summarize,
} from "./message.ts";

export interface UploadRequest {
  fileId: string;
  userId: string;
  channelId?: string;
  /** `event`: any file shared where the bot is (others than CSV/xlsx are ignored); `form`: /sb import. */
  via: "event" | "form";
  group?: { id?: number; newName?: string };
  updateExisting?: boolean;
}

const MAX_ERROR_LINES = 50_000;
// Slack allows about one chat.update a second per message; a few seconds apart is plenty for a progress bar.
const PROGRESS_EVERY_MS = 3000;

const actorOf = (userId: string, channelId?: string): Actor => ({ userId, channelId, via: "slack" });

async function fieldsOf(deps: SlackDeps, actor: Actor): Promise<FieldDefinition[]> {
  const fields = await withApi(deps, actor, "read", "import preview", (api) => contactFields(api));
  return fields.map((f) => ({ key: f.key as string, label: f.label, type: f.type }));
}

/** Says something in the upload's thread (or the user's DM when there is no channel). */
async function say(
  deps: SlackDeps,
  client: webApi.WebClient,
  where: { channel?: string; threadTs?: string; userId: string },
  text: string,
) {
  const channel = where.channel ?? where.userId;
  try {
    await deps.posts.post(client, {
      channel,
      text,
      ...(where.threadTs ? { thread_ts: where.threadTs } : {}),
    });
  } catch (err) {
    const code = slackError(err);
    if (code !== "not_in_channel" && code !== "channel_not_found") throw err;
    await deps.posts.post(client, { channel: where.userId, text });
  }
}

/** Downloads into a temporary file, hashing the bytes on the way. */
async function spool(file: SlackFile, deps: SlackDeps): Promise<{ path: string; hash: string }> {
  const dir = join(tmpdir(), "switchboard-uploads");
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${file.id}-${randomBytes(6).toString("hex")}`);
  const hash = createHash("sha256");
  async function* hashed() {
    for await (const chunk of downloadFile(file, deps.config)) {
      hash.update(chunk);
      yield chunk;
    }
  }
  try {
    await pipeline(hashed, createWriteStream(path));
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  }
  return { path, hash: hash.digest("hex") };
}

export async function previewUpload(
  deps: SlackDeps,
  client: webApi.WebClient,
  req: UploadRequest,
): Promise<void> {
  const db = deps.db;
  if (!db) {
    deps.logger.warn(
      { fileId: req.fileId },
      "upload ignored: the Slack app has no database for pending imports",
    );
    return;
  }
  const actor = actorOf(req.userId, req.channelId);
  const info = await fileInfo(client, req.fileId, req.channelId);
  if (!isImportable(info)) {
    if (req.via === "form")
      await say(
        deps,
        client,
        { channel: req.channelId, userId: req.userId },
        `:warning: ${esc(info.name)} is not a CSV or xlsx file: nothing was imported.`,
      );
    return;
  }
  const where = { channel: req.channelId, threadTs: info.shareTs, userId: req.userId };
  let spooled: { path: string; hash: string } | undefined;
  try {
    checkFile(info, deps.config);
    spooled = await spool(info, deps);
    const fields = await fieldsOf(deps, actor);
    const preview = await previewImport(spooled.path, {
      fields,
      defaultCountry: deps.config.DEFAULT_COUNTRY,
    });
    const summary = summarize(preview);
    const pending = await createPendingImport(db, {
      fileId: info.id,
      contentHash: spooled.hash,
      fileName: info.name,
      userId: req.userId,
      channel: req.channelId ?? req.userId,
      threadTs: info.shareTs,
      headers: preview.headers,
      mapping: preview.mapping,
      summary,
      groupId: req.group?.id,
      newGroup: req.group?.newName !== undefined ? req.group.newName || newGroupName(info.name) : undefined,
      updateExisting: req.updateExisting ?? false,
    });
    if (!pending) {
      deps.logger.info({ fileId: info.id }, "upload already previewed: not again");
      return;
    }
    await postPreview(deps, client, pending, summary);
  } catch (err) {
    if (err instanceof UploadRefused || err instanceof ImportFileError || err instanceof MappingError) {
      await say(deps, client, where, `:warning: ${esc(err.message)} Nothing was imported.`);
      return;
    }
    throw err;
  } finally {
    if (spooled) await rm(spooled.path, { force: true });
  }
}

async function postPreview(deps: SlackDeps, client: webApi.WebClient, p: PendingImport, s: PreviewSummary) {
  const groups = await withApi(deps, actorOf(p.userId), "read", "import preview", (api) => api.listGroups());
  const message = previewMessage(p, s, groups.items);
  let channel = p.channel ?? p.userId;
  let res: webApi.ChatPostMessageResponse;
  try {
    res = await deps.posts.post(client, {
      channel,
      ...message,
      ...(p.threadTs ? { thread_ts: p.threadTs } : {}),
    });
  } catch (err) {
    const code = slackError(err);
    if (code !== "not_in_channel" && code !== "channel_not_found") throw err;
    channel = p.userId;
    res = await deps.posts.post(client, { channel, ...message });
  }
  if (deps.db && res.ts) await updatePendingImport(deps.db, p.id, { channel, messageTs: res.ts });
}

/** The thread of the preview: the share's thread, or the preview message's own. */
const threadOf = (p: PendingImport) => p.threadTs ?? p.messageTs;

async function redraw(
  deps: SlackDeps,
  client: webApi.WebClient,
  p: PendingImport,
  message: { text: string; blocks: unknown[] },
) {
  if (!p.channel || !p.messageTs) return;
  await client.chat
    .update({ channel: p.channel, ts: p.messageTs, text: message.text, blocks: message.blocks as never })
    .catch((err) =>
      deps.logger.warn({ err: slackError(err) ?? String(err) }, "could not update the import message"),
    );
}

/** What the clicker is told when the import is no longer pending. */
function alreadyDecided(p: PendingImport | undefined): string {
  if (!p) return "This import is not known (any more). Share the file again.";
  const by = p.decidedBy ? `<@${p.decidedBy}>` : "someone";
  const at = p.decidedAt ? ` at ${p.decidedAt.toISOString().replace(/\.\d+Z$/, "Z")}` : "";
  switch (p.state) {
    case "running":
      return `Already being imported (started by ${by}${at}).`;
    case "done":
      return `Already imported by ${by}${at}; nothing was imported again.`;
    case "failed":
      return `The import started by ${by}${at} failed; share the file again to retry.`;
    case "discarded":
      return `Discarded by ${by}${at}; share the file again to import it.`;
    default:
      return "This import cannot be started now.";
  }
}

/** Import clicked: runs once whatever the number of clicks. Returns what to tell the clicker, if anything. */
export async function runImport(
  deps: SlackDeps,
  client: webApi.WebClient,
  id: string,
  actor: Actor,
  /** The preview message the click came from: Import can be clicked before its ts was stored. */
  origin: { channel?: string; messageTs?: string } = {},
): Promise<string | undefined> {
  const db = deps.db;
  if (!db) return "Imports need the database; the operator should check the Slack app's setup.";
  return withApi(deps, actor, "write", `import (upload ${id})`, async (api) => {
    const claimed = await claimPendingImport(db, id, actor.userId);
    if (!claimed) return alreadyDecided(await getPendingImport(db, id));
    const p: PendingImport = {
      ...claimed,
      channel: claimed.channel ?? origin.channel,
      messageTs: claimed.messageTs ?? origin.messageTs,
    };
    const s = p.summary as PreviewSummary;
    const thread = threadOf(p);
    const now = deps.now ?? Date.now;
    const everyMs = deps.progressEveryMs ?? PROGRESS_EVERY_MS;
    await redraw(deps, client, p, progressMessage(p, s, 0, actor.userId));
    let lastDraw = now();
    // One progress redraw at a time, skipped while one is in flight: they
    // cannot land out of order, nor after the outcome (awaited before it).
    let drawing: Promise<void> | undefined;
    const failures: ErrorLine[] = [];
    let moreFailures = 0;
    try {
      const fields = await fieldsOf(deps, actor);
      const info = await fileInfo(client, p.fileId, p.channel);
      checkFile(info, deps.config);
      let groupId = p.groupId;
      let created: ApiRecord | undefined;
      if (p.newGroup) {
        created = await api.createGroup({ name: p.newGroup, description: `Imported from ${p.fileName}` });
        groupId = created.id;
      }
      const csv = normalizedCsv(
        { filename: info.name, open: () => downloadFile(info, deps.config) },
        p.mapping as ColumnMapping,
        {
          fields,
          defaultCountry: deps.config.DEFAULT_COUNTRY,
          onFailure: (f) => {
            if (failures.length < MAX_ERROR_LINES)
              failures.push({ row: f.row, phone: f.phone, reason: f.reason });
            else moreFailures++;
          },
          onProgress: (progress) => {
            const t = now();
            if (drawing || t - lastDraw < everyMs) return;
            lastDraw = t;
            drawing = redraw(deps, client, p, progressMessage(p, s, progress.rows, actor.userId)).finally(
              () => {
                drawing = undefined;
              },
            );
          },
        },
      );
      let result: ImportResult;
      try {
        result = await api.importContacts(
          { filename: normalizedFileName(p.fileName), contentType: "text/csv", body: csv.body },
          { groupId, updateExisting: p.updateExisting },
        );
      } catch (err) {
        csv.body.destroy();
        throw err;
      }
      const summary = await csv.done;
      await drawing;
      for (const e of result.errors) {
        if (failures.length >= MAX_ERROR_LINES) {
          moreFailures++;
          continue;
        }
        const row = typeof e.row === "number" ? (csv.sourceRowOf(e.row) ?? e.row) : undefined;
        failures.push({ row, phone: typeof e.phone === "string" ? e.phone : undefined, message: e.message });
      }
      const errorCount = summary.failed + result.errors.length;
      const line = `:white_check_mark: *Imported* by <@${actor.userId}>: ${num(result.created)} created, ${num(result.updated)} updated, ${num(errorCount)} error${errorCount === 1 ? "" : "s"}${groupId ? `; added to group #${groupId}${created ? ` “${esc(p.newGroup)}” (new)` : ""}` : ""}.`;
      await finishPendingImport(db, p.id, "done", {
        created: result.created,
        updated: result.updated,
        errors: errorCount,
        groupId,
      });
      await redraw(deps, client, p, closedMessage(p, s, line));
      await say(
        deps,
        client,
        { channel: p.channel, threadTs: thread, userId: p.userId },
        line.replace(/\*/g, ""),
      );
      if (failures.length) {
        const note = moreFailures ? ` (the first ${failures.length}; ${moreFailures} more not listed)` : "";
        await client.filesUploadV2({
          channel_id: p.channel,
          ...(thread ? { thread_ts: thread } : {}),
          filename: `${normalizedFileName(p.fileName).replace(/\.csv$/, "")}-errors.csv`,
          title: `Errors of ${p.fileName}`,
          content: errorsCsv(failures),
          initial_comment: `The ${errorCount} row${errorCount === 1 ? "" : "s"} not imported, with the reason${note}.`,
        } as never);
      }
      return undefined;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      deps.logger.warn({ err: why, importId: p.id }, "import failed");
      await drawing;
      await finishPendingImport(db, p.id, "failed", { error: why.slice(0, 500) });
      const line = `:x: The import failed: ${esc(why.slice(0, 500))}. Share the file again to retry.`;
      await redraw(deps, client, p, closedMessage(p, s, line));
      await say(deps, client, { channel: p.channel, threadTs: thread, userId: p.userId }, line);
      return undefined;
    }
  });
}

export async function discardImport(
  deps: SlackDeps,
  client: webApi.WebClient,
  id: string,
  actor: Actor,
): Promise<string | undefined> {
  const db = deps.db;
  if (!db) return undefined;
  return withApi(deps, actor, "write", `import discard (upload ${id})`, async () => {
    const p = await discardPendingImport(db, id, actor.userId);
    if (!p) return alreadyDecided(await getPendingImport(db, id));
    await redraw(
      deps,
      client,
      p,
      closedMessage(
        p,
        p.summary as PreviewSummary,
        `:wastebasket: Discarded by <@${actor.userId}>; nothing was imported.`,
      ),
    );
    return undefined;
  });
}

/** A new mapping chosen: the file is read again with it and the preview redrawn. */
export async function remapImport(
  deps: SlackDeps,
  client: webApi.WebClient,
  id: string,
  mapping: ColumnMapping,
  actor: Actor,
): Promise<string | undefined> {
  const db = deps.db;
  if (!db) return undefined;
  const p = await getPendingImport(db, id);
  if (p?.state !== "pending") return alreadyDecided(p);
  const info = await fileInfo(client, p.fileId, p.channel);
  const fields = await fieldsOf(deps, actor);
  const preview = await previewImport(
    { filename: info.name, open: () => downloadFile(info, deps.config) },
    { fields, defaultCountry: deps.config.DEFAULT_COUNTRY, mapping: mappingOverride(mapping, fields) },
  );
  const summary = summarize(preview);
  const updated = await updatePendingImport(db, id, { mapping: preview.mapping, summary });
  if (!updated) return alreadyDecided(await getPendingImport(db, id));
  const groups = await withApi(deps, actor, "read", "import preview", (api) => api.listGroups());
  await redraw(deps, client, updated, previewMessage(updated, summary, groups.items));
  return undefined;
}

/** A full mapping as an override: every member given, so nothing falls back to the suggestion. */
export function mappingOverride(m: ColumnMapping, fields: FieldDefinition[]): Record<string, unknown> {
  const all: Record<string, number | null> = Object.fromEntries(fields.map((f) => [f.key, null]));
  return {
    phone: m.phone,
    first_name: m.first_name,
    last_name: m.last_name,
    email: m.email,
    name: m.name,
    fields: { ...all, ...m.fields },
  };
}
