// An upload from Slack becomes a contact import through the imports service
// (src/imports: pending.ts, service.ts); this file is the Slack side of it.
// Preview: the file is downloaded once into a temporary file (hashing it on
// the way), the service previews it and stores it as pending (a second
// delivery of the same upload stops there), and the preview with its controls
// is posted in the file's thread. Import: the service claims it (once),
// downloads it again through our function and runs it; its progress redraws
// the preview message (throttled), and its outcome is posted in the thread
// with the errors CSV. Who decides: Import, the uploader when allowed to make
// changes, or a broadcaster; Discard, the uploader or a broadcaster. At start,
// an import a stopped process left running is told as unknown, with what to
// check and Try again (settleInterruptedImports).
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import type { webApi } from "@slack/bolt";
import { esc } from "../../../blocks/blocks.ts";
import type { Actor } from "../../../commands/types.ts";
import {
  type ColumnMapping,
  type FieldDefinition,
  ImportFileError,
  ImportService,
  importFields,
  MappingError,
  PendingImports,
  type PreviewSummary,
  uploadTempPath,
} from "../../../imports/index.ts";
import type { PendingImport } from "../../../store/imports.ts";
import type { OneWorkspaceWork } from "../../context.ts";
import { postOrDm, slackCode } from "../../io/slack-errors.ts";
import { tellAccepted } from "../../outcomes.ts";
import { withApi } from "../../perform.ts";
import {
  checkFile,
  downloadFile,
  fileInfo,
  isImportable,
  type SlackFile,
  UploadRefused,
} from "./download.ts";
import {
  alreadyDecided,
  closedMessage,
  failedLine,
  importedLine,
  newGroupName,
  previewMessage,
  progressMessage,
  unknownMessage,
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

// Slack allows about one chat.update a second per message; a few seconds apart is plenty for a progress bar.
const PROGRESS_EVERY_MS = 3000;

const actorOf = (userId: string, channelId?: string): Actor => ({ userId, channelId, via: "slack" });

/** The pending imports of the app's database; undefined when it has none. */
export function pendingImports(deps: OneWorkspaceWork): PendingImports | undefined {
  return (
    deps.stores &&
    new PendingImports(
      deps.stores.imports,
      new ImportService({
        defaultCountry: deps.core.defaultCountry,
        timeoutMs: deps.config.IMPORT_TIMEOUT_MS,
      }),
    )
  );
}

const fieldsOf = (deps: OneWorkspaceWork, actor: Actor): Promise<FieldDefinition[]> =>
  withApi(deps, actor, "read", "import preview", importFields);

/** The file again, from Slack (its size and host checked before any byte is read). */
async function download(deps: OneWorkspaceWork, client: webApi.WebClient, p: PendingImport) {
  const info = await fileInfo(client, p.fileId, p.channel);
  checkFile(info, deps.config);
  return { filename: info.name, open: () => downloadFile(info, deps.config, client) };
}

/** Says something in the upload's thread (or the user's DM when there is no channel). */
async function say(
  deps: OneWorkspaceWork,
  client: webApi.WebClient,
  where: { channel?: string; threadTs?: string; userId: string },
  text: string,
) {
  await postOrDm(
    deps.posts,
    client,
    {
      channel: where.channel ?? where.userId,
      text,
      ...(where.threadTs ? { thread_ts: where.threadTs } : {}),
    },
    where.userId,
  );
}

/** Downloads into a temporary file, hashing the bytes on the way. */
async function spool(
  file: SlackFile,
  deps: OneWorkspaceWork,
  client: webApi.WebClient,
): Promise<{ path: string; hash: string }> {
  // Named after this process: a start removes what a crash left (removeStaleUploads).
  const path = await uploadTempPath(file.id);
  const hash = createHash("sha256");
  async function* hashed() {
    for await (const chunk of downloadFile(file, deps.config, client)) {
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
  deps: OneWorkspaceWork,
  client: webApi.WebClient,
  req: UploadRequest,
): Promise<void> {
  const imports = pendingImports(deps);
  if (!imports) {
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
    spooled = await spool(info, deps, client);
    const fields = await fieldsOf(deps, actor);
    const proposed = await imports.propose(
      {
        fileId: info.id,
        contentHash: spooled.hash,
        fileName: info.name,
        userId: req.userId,
        channel: req.channelId ?? req.userId,
        threadTs: info.shareTs,
        groupId: req.group?.id,
        newGroup: req.group?.newName !== undefined ? req.group.newName || newGroupName(info.name) : undefined,
        updateExisting: req.updateExisting ?? false,
      },
      spooled.path,
      fields,
    );
    if (!proposed) {
      deps.logger.info({ fileId: info.id }, "upload already previewed: not again");
      return;
    }
    await postPreview(deps, client, imports, proposed.pending, proposed.summary);
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

/** A Settings button under a preview whose numbers need a country, when the uploader may set one. */
async function offerSettings(deps: OneWorkspaceWork, p: PendingImport, s: PreviewSummary): Promise<boolean> {
  if (!s.noCountry || !deps.core.admin) return false;
  return deps.core.admin.mayAdminister(actorOf(p.userId, p.channel)).catch(() => false);
}

async function postPreview(
  deps: OneWorkspaceWork,
  client: webApi.WebClient,
  imports: PendingImports,
  p: PendingImport,
  s: PreviewSummary,
) {
  const groups = await withApi(deps, actorOf(p.userId), "read", "import preview", (api) => api.listGroups());
  const message = previewMessage(p, s, groups.items, { settings: await offerSettings(deps, p, s) });
  const res = await postOrDm(
    deps.posts,
    client,
    { channel: p.channel ?? p.userId, ...message, ...(p.threadTs ? { thread_ts: p.threadTs } : {}) },
    p.userId,
  );
  if (res.ts) await imports.place(p.id, { channel: res.channel, messageTs: res.ts });
}

/** The thread of the preview: the share's thread, or the preview message's own. */
const threadOf = (p: PendingImport) => p.threadTs ?? p.messageTs;

async function redraw(
  deps: OneWorkspaceWork,
  client: webApi.WebClient,
  p: PendingImport,
  message: { text: string; blocks: unknown[] },
) {
  if (!p.channel || !p.messageTs) return;
  await client.chat
    .update({ channel: p.channel, ts: p.messageTs, text: message.text, blocks: message.blocks as never })
    .catch((err) =>
      deps.logger.warn({ err: slackCode(err) ?? String(err) }, "could not update the import message"),
    );
}

/**
 * Who may decide on an upload: a broadcaster always; the uploader to import
 * only when allowed to make changes, to discard in any case. Returns the
 * access to act with, or the refusal in words.
 */
async function decider(
  deps: OneWorkspaceWork,
  actor: Actor,
  p: PendingImport | undefined,
  what: "import" | "discard",
): Promise<{ access: "write" | "broadcast" } | { refused: string }> {
  const may = deps.core.may.bind(deps.core);
  if (!p) return { access: "write" };
  if (await may(actor, "broadcast")) return { access: "broadcast" };
  const uploader = p.userId === actor.userId;
  if (uploader && (what === "discard" || (await may(actor, "write")))) return { access: "write" };
  return {
    refused: uploader
      ? `You may not import contacts: only people allowed to make changes may import the files they share, or someone allowed to send campaigns. Ask one of them to import it, or to have you added to those who may make changes.`
      : `Only <@${p.userId}>, who shared ${esc(p.fileName)}, or someone allowed to send campaigns may ${what === "import" ? "import" : "discard"} it.`,
  };
}

/** Import clicked: runs once whatever the number of clicks. Returns what to tell the clicker, if anything. */
export async function runImport(
  deps: OneWorkspaceWork,
  client: webApi.WebClient,
  id: string,
  actor: Actor,
  /** The preview message the click came from: Import can be clicked before its ts was stored. */
  origin: { channel?: string; messageTs?: string } = {},
  /** "unknown": Try again on an import whose outcome is unknown. */
  from: "pending" | "unknown" = "pending",
): Promise<string | undefined> {
  const imports = pendingImports(deps);
  if (!imports) return "Imports need the database; the operator should check the Slack app's setup.";
  const current = await imports.get(id);
  if (current && current.state !== from) return alreadyDecided(current);
  const who = await decider(deps, actor, current, "import");
  if ("refused" in who) return who.refused;
  // Handed back at a graceful stop: settled as unknown, as at start (src/slack/shutdown.ts).
  const done = deps.work.onHandBack(() => settleInterruptedImports(deps, client, [id]));
  try {
    return await runClaimed(deps, client, id, actor, origin, from, imports, who.access);
  } finally {
    done();
  }
}

async function runClaimed(
  deps: OneWorkspaceWork,
  client: webApi.WebClient,
  id: string,
  actor: Actor,
  origin: { channel?: string; messageTs?: string },
  from: "pending" | "unknown",
  imports: PendingImports,
  access: "write" | "broadcast",
): Promise<string | undefined> {
  return withApi(deps, actor, access, `import (upload ${id})`, async (api) => {
    const now = deps.now ?? Date.now;
    const everyMs = deps.progressEveryMs ?? PROGRESS_EVERY_MS;
    let p: PendingImport | undefined;
    let lastDraw = 0;
    // One progress redraw at a time, skipped while one is in flight: they
    // cannot land out of order, nor after the outcome (awaited before it).
    let drawing: Promise<void> | undefined;
    // The file again, into a temporary file first: the import reads it at its own pace.
    let spooled: string | undefined;
    const run = await imports.run(id, actor.userId, {
      api,
      from,
      source: async (claimed) => {
        const info = await fileInfo(client, claimed.fileId, claimed.channel);
        checkFile(info, deps.config);
        spooled = (await spool(info, deps, client)).path;
        return spooled;
      },
      onClaimed: async (claimed) => {
        p = {
          ...claimed,
          channel: claimed.channel ?? origin.channel,
          messageTs: claimed.messageTs ?? origin.messageTs,
        };
        await redraw(deps, client, p, progressMessage(p, p.summary as PreviewSummary, 0, actor.userId));
        lastDraw = now();
      },
      onProgress: ({ done }) => {
        const t = now();
        if (!p || drawing || t - lastDraw < everyMs) return;
        lastDraw = t;
        drawing = redraw(
          deps,
          client,
          p,
          progressMessage(p, p.summary as PreviewSummary, done, actor.userId),
        ).finally(() => {
          drawing = undefined;
        });
      },
    });
    await drawing;
    if (spooled) await rm(spooled, { force: true });
    if (!run.ok) return alreadyDecided(run.current);
    const shown = p ?? run.pending;
    const s = shown.summary as PreviewSummary;
    const where = { channel: shown.channel, threadTs: threadOf(shown), userId: shown.userId };
    if (run.state === "unknown") {
      deps.logger.warn({ err: run.unknown, importId: shown.id }, "import: no answer, outcome unknown");
      const wait = run.unknown.timeoutMs ? ` within ${Math.round(run.unknown.timeoutMs / 1000)} s` : "";
      const message = unknownMessage(shown, s, `the messaging API gave no answer${wait}`);
      await redraw(deps, client, shown, message);
      await tellAccepted(deps, actor.userId, message.text, () => say(deps, client, where, message.text));
      return undefined;
    }
    if (run.state === "failed") {
      deps.logger.warn({ err: run.error, importId: shown.id }, "import failed");
      const line = failedLine(run.error);
      await redraw(deps, client, shown, closedMessage(shown, s, line));
      await tellAccepted(deps, actor.userId, line, () => say(deps, client, where, line));
      return undefined;
    }
    const o = run.outcome;
    const line = importedLine(o, actor.userId);
    await redraw(deps, client, shown, closedMessage(shown, s, line));
    // The API took the import: a failure to say so is kept for the person, never "try again".
    const said = line.replace(/\*/g, "");
    await tellAccepted(deps, actor.userId, `${said} (${shown.fileName})`, () =>
      say(deps, client, where, said),
    );
    if (o.errorReport) {
      const report = o.errorReport;
      const note = o.unlisted ? ` (the first ${o.failures.length}; ${o.unlisted} more not listed)` : "";
      const rows = `${o.failed} row${o.failed === 1 ? "" : "s"}`;
      await tellAccepted(
        deps,
        actor.userId,
        `The list of the ${rows} of ${shown.fileName} not imported could not be posted.`,
        () =>
          client.filesUploadV2({
            channel_id: shown.channel,
            ...(where.threadTs ? { thread_ts: where.threadTs } : {}),
            filename: report.fileName,
            title: `Errors of ${shown.fileName}`,
            content: report.content,
            initial_comment: `The ${rows} not imported, with the reason${note}.`,
          } as never),
      );
    }
    return undefined;
  });
}

export async function discardImport(
  deps: OneWorkspaceWork,
  client: webApi.WebClient,
  id: string,
  actor: Actor,
): Promise<string | undefined> {
  const imports = pendingImports(deps);
  if (!imports) return undefined;
  const current = await imports.get(id);
  if (current && current.state !== "pending") return alreadyDecided(current);
  const who = await decider(deps, actor, current, "discard");
  if ("refused" in who) return who.refused;
  // Nothing reaches the API: the permission above is the whole check.
  const r = await imports.discard(id, actor.userId);
  if (!r.ok) return alreadyDecided(r.current);
  await redraw(
    deps,
    client,
    r.pending,
    closedMessage(
      r.pending,
      r.pending.summary as PreviewSummary,
      `:wastebasket: Discarded by <@${actor.userId}>; nothing was imported. Share the file again for a new preview.`,
    ),
  );
  return undefined;
}

/**
 * At start: imports an earlier process left running (it was stopped in the
 * middle) are settled as unknown; each message says so, with what to check
 * and Try again, and the thread is told. Nothing is imported again here.
 */
export async function settleInterruptedImports(
  deps: OneWorkspaceWork,
  client: webApi.WebClient,
  ids?: string[],
): Promise<number> {
  const imports = pendingImports(deps);
  if (!imports) return 0;
  const settled = await imports.settleInterrupted(ids);
  for (const p of settled) {
    deps.logger.warn({ importId: p.id }, "import left running by an earlier process: outcome unknown");
    const message = unknownMessage(p, p.summary as PreviewSummary);
    await redraw(deps, client, p, message);
    await say(
      deps,
      client,
      { channel: p.channel, threadTs: threadOf(p), userId: p.userId },
      message.text,
    ).catch((err) =>
      deps.logger.warn({ err: slackCode(err) ?? String(err) }, "could not tell the import's thread"),
    );
  }
  return settled.length;
}

/** A new mapping chosen: the file is read again with it and the preview redrawn. */
export async function remapImport(
  deps: OneWorkspaceWork,
  client: webApi.WebClient,
  id: string,
  mapping: ColumnMapping,
  actor: Actor,
): Promise<string | undefined> {
  const imports = pendingImports(deps);
  if (!imports) return undefined;
  const p = await imports.get(id);
  if (p?.state !== "pending") return alreadyDecided(p);
  const source = await download(deps, client, p);
  const fields = await fieldsOf(deps, actor);
  const r = await imports.remap(id, source, mapping, fields);
  if (!r.ok) return alreadyDecided(r.current);
  const groups = await withApi(deps, actor, "read", "import preview", (api) => api.listGroups());
  const settings = await offerSettings(deps, r.pending, r.summary);
  await redraw(deps, client, r.pending, previewMessage(r.pending, r.summary, groups.items, { settings }));
  return undefined;
}
