// Files a writer sends from an inbox thread (docs/inbox.md, "Pictures and
// files"). The API takes a `mediaUrl`, so each file is read from Slack with the
// bot token (only from Slack's file host; an HTML page instead of the file is
// refused: Slack answers its login page with 200 when the app lacks
// `files:read`), checked (type and size, before anything is sent), kept in the
// store (src/store/media.ts) and served at PUBLIC_URL/media/<id> until
// MEDIA_TTL_HOURS pass.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CustomRoute, webApi } from "@slack/bolt";
import { UserError } from "../../../commands/registry.ts";
import type { Config } from "../../../platform/config.ts";
import type { Logger } from "../../../platform/log.ts";
import type { Db } from "../../../store/db.ts";
import { MediaStore, mediaFile } from "../../../store/media.ts";
import { botTokenOf } from "../../tenancy/workspace-client.ts";
import { allowedFileHost, fileInfo, type SlackFile } from "../uploads/download.ts";

export type MediaConfig = Pick<
  Config,
  "PUBLIC_URL" | "MEDIA_TTL_HOURS" | "MEDIA_MAX_IMAGE_MB" | "MEDIA_MAX_DOCUMENT_MB" | "SLACK_API_URL"
>;

/** A file ready to be sent: the API message's type, where it is served, its name. */
export interface PreparedMedia {
  type: "image" | "document";
  mediaUrl: string;
  name: string;
}

/** Images the phone networks take everywhere. */
const IMAGES: Record<string, string> = { jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png" };
/** Documents: PDF, office files, plain text. */
const DOCUMENTS: Record<string, string> = {
  pdf: "application/pdf",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.ms-powerpoint",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  txt: "text/plain",
  text: "text/plain",
  csv: "text/csv",
};

const extension = (f: Pick<SlackFile, "name" | "filetype">): string =>
  String(f.filetype || /\.([A-Za-z0-9]+)$/.exec(f.name)?.[1] || "").toLowerCase();

/** What a Slack file is sent as, with the content type it is served with; undefined when it cannot be sent. */
export function mediaKind(
  f: Pick<SlackFile, "name" | "filetype" | "mimetype">,
): { type: "image" | "document"; contentType: string } | undefined {
  const ext = extension(f);
  const mime = String(f.mimetype ?? "").toLowerCase();
  if (IMAGES[ext] || mime === "image/jpeg" || mime === "image/png")
    return { type: "image", contentType: IMAGES[ext] ?? mime };
  if (mime.startsWith("image/")) return undefined;
  if (DOCUMENTS[ext]) return { type: "document", contentType: DOCUMENTS[ext] };
  const known = Object.values(DOCUMENTS).find((m) => m === mime);
  return known ? { type: "document", contentType: known } : undefined;
}

const MB = 1024 * 1024;
const megabytes = (n: number) => `${(n / MB).toFixed(n < MB ? 2 : 1)} MB`;

/** The largest file of a type, in bytes. */
const limitOf = (type: "image" | "document", config: MediaConfig) =>
  (type === "image" ? config.MEDIA_MAX_IMAGE_MB : config.MEDIA_MAX_DOCUMENT_MB) * MB;

/** Refuses what cannot be sent, in words, before any byte is read. */
export function checkMedia(
  f: SlackFile,
  config: MediaConfig,
): { type: "image" | "document"; contentType: string } {
  const kind = mediaKind(f);
  if (!kind)
    throw new UserError(
      `${f.name} cannot be sent to a customer: images must be JPEG or PNG, documents PDF, Word, Excel, PowerPoint, text or CSV.`,
      false,
    );
  const limit = limitOf(kind.type, config);
  if (f.size > limit)
    throw new UserError(
      `${f.name} is ${megabytes(f.size)}, too large to send to a customer: ${kind.type === "image" ? "images" : "documents"} up to ${limit / MB} MB can be sent.`,
      false,
    );
  let url: URL | undefined;
  try {
    url = new URL(f.url);
  } catch {}
  if (!url || url.host !== allowedFileHost(config) || !/^https?:$/.test(url.protocol))
    throw new UserError(`Slack gave no address on its file host for ${f.name}.`, false);
  return kind;
}

const LOGIN_PAGE = new UserError(
  "Slack answered with a login page instead of the file: the app needs the files:read scope (whoever installed it adds the scope and reinstalls it).",
  false,
);

/** The file's bytes from Slack with the bot token; never past `limit`, never an HTML page. */
async function* fromSlack(f: SlackFile, token: string, limit: number): AsyncGenerator<Uint8Array> {
  const controller = new AbortController();
  // redirect: manual: a redirect would carry the token to another host.
  const res = await fetch(f.url, {
    headers: { authorization: `Bearer ${token}` },
    redirect: "manual",
    signal: controller.signal,
  });
  try {
    if (res.status !== 200 || !res.body)
      throw new UserError(
        `Slack did not hand over ${f.name} (HTTP ${res.status}); check that the app has the files:read scope.`,
        false,
      );
    if (/text\/html/i.test(res.headers.get("content-type") ?? "")) throw LOGIN_PAGE;
    let seen = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (seen === 0 && /^\s*<(!doctype html|html)/i.test(Buffer.from(chunk.subarray(0, 64)).toString()))
        throw LOGIN_PAGE;
      seen += chunk.length;
      if (seen > limit)
        throw new UserError(
          `${f.name} is over the ${megabytes(limit)} limit; the download was stopped.`,
          false,
        );
      yield chunk;
    }
  } finally {
    controller.abort();
  }
}

/**
 * The files of a thread reply, read, checked and kept, in order: each one
 * checked before any is downloaded, so a refusal leaves nothing sent. Throws
 * a UserError saying why one cannot be sent.
 */
export async function prepareMedia(
  client: webApi.WebClient,
  store: MediaStore,
  config: MediaConfig,
  files: Array<{ id: string }>,
  now: Date,
): Promise<PreparedMedia[]> {
  const base = config.PUBLIC_URL;
  if (!base) throw new UserError("PUBLIC_URL is not set.", false);
  const infos: Array<SlackFile & { kind: ReturnType<typeof checkMedia> }> = [];
  for (const { id } of files) {
    const f = await fileInfo(client, id);
    infos.push({ ...f, kind: checkMedia(f, config) });
  }
  const token = await botTokenOf(client);
  const out: PreparedMedia[] = [];
  for (const f of infos) {
    const kept = await store.put(
      {
        name: f.name,
        contentType: f.kind.contentType,
        now,
        expiresAt: new Date(now.getTime() + config.MEDIA_TTL_HOURS * 3_600_000),
      },
      fromSlack(f, token, limitOf(f.kind.type, config)),
    );
    out.push({ type: f.kind.type, mediaUrl: `${base.replace(/\/+$/, "")}/media/${kept.id}`, name: f.name });
  }
  return out;
}

/** The send bodies of a reply with files: one message each, in order, the text as the first one's caption. */
export function mediaMessages(
  media: PreparedMedia[],
  text: string,
): Array<{ type: "image" | "document"; mediaUrl: string; text?: string }> {
  return media.map((m, i) => ({
    type: m.type,
    mediaUrl: m.mediaUrl,
    ...(i === 0 && text ? { text } : {}),
  }));
}

/** `filename*` of Content-Disposition: the name in UTF-8, percent-encoded. */
const dispositionName = (name: string) =>
  `filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)}`;

/**
 * GET (or HEAD) /media/<id>: a file sent to a customer, while it is kept. Unknown and
 * expired ids get 404 (an expired file is removed on the way).
 */
export function mediaRoute(db: Db, logger: Logger, now: () => Date = () => new Date()): CustomRoute {
  return {
    path: "/media/:id",
    method: ["GET", "HEAD"],
    handler: (req: IncomingMessage, res: ServerResponse) => {
      const id = String((req as IncomingMessage & { params?: Record<string, string> }).params?.id ?? "");
      const serve = async () => {
        const file = /^[A-Za-z0-9_-]{16,64}$/.test(id) ? await mediaFile(db, id, now()) : undefined;
        if (!file) {
          res.writeHead(404, { "content-type": "text/plain" });
          res.end("No such file, or it has expired.\n");
          return;
        }
        res.writeHead(200, {
          "content-type": file.contentType,
          "content-length": String(file.size),
          "content-disposition": `${file.contentType.startsWith("image/") ? "inline" : "attachment"}; ${dispositionName(file.name)}`,
          "cache-control": "private, max-age=3600",
          "x-content-type-options": "nosniff",
        });
        // The token names the file, whichever workspace's it is; its chunks are read as that workspace's.
        // stores: the media route serves every workspace's files by their token: the file's own workspace's chunks
        const store = new MediaStore(db, file.workspace);
        for (let seq = 0; req.method !== "HEAD" && seq < file.chunks; seq++) {
          const data = await store.chunk(file.id, seq);
          if (!data || res.destroyed) break;
          if (!res.write(data))
            await new Promise((resolve) => {
              res.once("drain", resolve);
              res.once("close", resolve);
            });
        }
        res.end();
      };
      serve().catch((err) => {
        logger.warn({ err: (err as Error).message }, "could not serve a media file");
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end();
      });
    },
  };
}
