// An uploaded file, read from Slack: files.info for its name, size and
// private download address, then the bytes with the bot token, but only from
// Slack's file host (files.slack.com, or the host of SLACK_API_URL when set:
// the token must never go anywhere else) and never past IMPORT_MAX_BYTES.

import type { webApi } from "@slack/bolt";
import { XLSX_MAX_BYTES } from "../../../imports/source.ts";
import type { Config } from "../../../platform/config.ts";
import { SwitchboardError } from "../../../platform/errors.ts";
import { botTokenOf } from "../../tenancy/workspace-client.ts";

export interface SlackFile {
  id: string;
  name: string;
  size: number;
  filetype?: string;
  mimetype?: string;
  url: string;
  /** ts of the message that shared it in `channel`, to answer in its thread. */
  shareTs?: string;
}

export class UploadRefused extends SwitchboardError {
  readonly code = "upload_refused";
}

const IMPORTABLE = /\.(csv|tsv|txt|xlsx)$/i;
const IMPORTABLE_TYPES = new Set(["csv", "tsv", "text", "xlsx"]);

export function isImportable(file: { name?: string; filetype?: string }): boolean {
  return IMPORTABLE.test(file.name ?? "") || IMPORTABLE_TYPES.has(String(file.filetype ?? "").toLowerCase());
}

function isXlsx(file: { name?: string; filetype?: string }): boolean {
  return /\.xlsx$/i.test(file.name ?? "") || String(file.filetype ?? "").toLowerCase() === "xlsx";
}

/** Slack's file host: the host of SLACK_API_URL when set, else files.slack.com. */
export function allowedFileHost(config: Pick<Config, "SLACK_API_URL">): string {
  return config.SLACK_API_URL ? new URL(config.SLACK_API_URL).host : "files.slack.com";
}

// biome-ignore lint/suspicious/noExplicitAny: files.info's file object is loosely typed.
function shareTs(file: any, channel?: string): string | undefined {
  if (!channel) return undefined;
  for (const kind of ["public", "private"]) {
    const list = file?.shares?.[kind]?.[channel];
    if (Array.isArray(list) && list[0]?.ts) return String(list[0].ts);
  }
  return undefined;
}

export async function fileInfo(
  client: webApi.WebClient,
  fileId: string,
  channel?: string,
): Promise<SlackFile> {
  const res = await client.files.info({ file: fileId });
  // biome-ignore lint/suspicious/noExplicitAny: see shareTs.
  const f = res.file as any;
  if (!f) throw new UploadRefused("Slack did not describe the file.");
  return {
    id: String(f.id ?? fileId),
    name: String(f.name ?? f.title ?? fileId),
    size: Number(f.size ?? 0),
    filetype: f.filetype,
    mimetype: f.mimetype,
    url: String(f.url_private_download ?? f.url_private ?? ""),
    shareTs: shareTs(f, channel),
  };
}

/** Refuses a file that is too big or not on Slack's host, before any byte is read. */
export function checkFile(file: SlackFile, config: Pick<Config, "SLACK_API_URL" | "IMPORT_MAX_BYTES">): void {
  if (file.size > config.IMPORT_MAX_BYTES) {
    throw new UploadRefused(
      `${file.name} is ${megabytes(file.size)}, over the import limit of ${megabytes(config.IMPORT_MAX_BYTES)} (IMPORT_MAX_BYTES).`,
    );
  }
  // exceljs keeps an xlsx's shared strings in memory (docs/imports.md); the
  // pipeline refuses a big one by its bytes too, whatever its name.
  if (isXlsx(file) && file.size > XLSX_MAX_BYTES) {
    throw new UploadRefused(
      `${file.name} is ${megabytes(file.size)}, over the ${megabytes(XLSX_MAX_BYTES)} limit for .xlsx files: save the sheet as CSV (File › Save as › CSV UTF-8), which has no such limit, and upload that.`,
    );
  }
  let url: URL;
  try {
    url = new URL(file.url);
  } catch {
    throw new UploadRefused(`Slack gave no download address for ${file.name}.`);
  }
  const host = allowedFileHost(config);
  if (url.host !== host || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new UploadRefused(`${file.name} is not on Slack's file host (${host}); it was not downloaded.`);
  }
}

const megabytes = (n: number) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 1)} MB`;

/**
 * The file's bytes as a stream, with the bot token; stops with an error past
 * IMPORT_MAX_BYTES (files.info may be wrong, or the file may have changed).
 */
export async function* downloadFile(
  file: SlackFile,
  config: Pick<Config, "SLACK_API_URL" | "IMPORT_MAX_BYTES">,
  /** The workspace's bot client: its token reads the file (the request's, or the TokenSource's). */
  client: webApi.WebClient,
): AsyncGenerator<Uint8Array> {
  checkFile(file, config);
  const controller = new AbortController();
  const token = await botTokenOf(client);
  // redirect: manual: a redirect would carry the token to another host (Slack answers a login page without it).
  const res = await fetch(file.url, {
    headers: { authorization: `Bearer ${token}` },
    redirect: "manual",
    signal: controller.signal,
  });
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel().catch(() => {});
    throw new UploadRefused(
      `Slack did not hand over ${file.name}. Check that the app has the files:read scope.`,
    );
  }
  let seen = 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      seen += chunk.length;
      if (seen > config.IMPORT_MAX_BYTES) {
        controller.abort();
        throw new UploadRefused(
          `${file.name} is over the import limit of ${megabytes(config.IMPORT_MAX_BYTES)} (IMPORT_MAX_BYTES); the download was stopped.`,
        );
      }
      yield chunk;
    }
  } finally {
    if (seen <= config.IMPORT_MAX_BYTES) controller.abort();
  }
}
