// The life of an import that waits for a decision (an upload previewed in a
// Slack thread): stored under file id + content hash, so a second delivery of
// the same upload stops at the store; its choices (group, update existing,
// mapping) changed only while it is pending; run by the first caller that
// moves it from pending to running, once however often it is asked; then
// done or failed, with the outcome kept; "unknown" when a process stopped
// in the middle of it, run again only when a person asks (Try again). The file is obtained through the
// caller's function (Slack downloads it again); nothing here knows Slack.
import type { MessagingApi } from "../api/types.ts";
import { metrics } from "../platform/metrics.ts";
import type { ImportStore, PendingImport } from "../store/imports.ts";
import { type ImportOutcomeUnknown, isImportOutcomeUnknown } from "./errors.ts";
import type { ColumnMapping, FieldDefinition } from "./headers.ts";
import { type ImportOutcome, type ImportProgress, type ImportService, importFields } from "./service.ts";
import type { ImportSource } from "./source.ts";
import { type PreviewSummary, summarizePreview } from "./summary.ts";

export interface NewPendingImport {
  /** The upload's id where it came from (Slack's file id). */
  fileId: string;
  /** sha256 of its bytes (contentHash): the same upload delivered again is recognized. */
  contentHash: string;
  fileName: string;
  userId: string;
  channel?: string;
  threadTs?: string;
  groupId?: number;
  newGroup?: string;
  updateExisting: boolean;
}

/** Not (or no longer) pending: `current` says what became of it; undefined when the id is unknown. */
export interface NotPending {
  ok: false;
  current: PendingImport | undefined;
}

export type Previewed = { ok: true; pending: PendingImport; summary: PreviewSummary };

export type PendingRun =
  | NotPending
  | { ok: true; state: "done"; pending: PendingImport; outcome: ImportOutcome }
  | { ok: true; state: "failed"; pending: PendingImport; error: string }
  /** No answer after the file may have reached the API: some, all or none of it may be in. */
  | { ok: true; state: "unknown"; pending: PendingImport; unknown: ImportOutcomeUnknown };

export interface RunHow {
  /** The API, already checked for the clicker's access; its writes are audited. */
  api: MessagingApi;
  /** The file, from its start (Slack: a new download). */
  source: (p: PendingImport) => Promise<ImportSource>;
  /** Called once the import is claimed, before the file is read. */
  onClaimed?: (p: PendingImport) => Promise<void>;
  onProgress?: (progress: ImportProgress) => void;
  /** "unknown": Try again on an import whose outcome is unknown (a person chose it). Default "pending". */
  from?: "pending" | "unknown";
}

export class PendingImports {
  private readonly store: ImportStore;
  readonly imports: ImportService;
  /** `store`: the workspace's pending imports (its stores'). */
  constructor(store: ImportStore, imports: ImportService) {
    this.store = store;
    this.imports = imports;
  }

  get(id: string): Promise<PendingImport | undefined> {
    return this.store.get(id);
  }

  private async notPending(id: string): Promise<NotPending> {
    return { ok: false, current: await this.get(id) };
  }

  /**
   * Previews the file and stores it as pending; undefined when this upload
   * (file id + content hash) is already known, so nothing is shown twice.
   */
  async propose(
    upload: NewPendingImport,
    source: ImportSource,
    fields: readonly FieldDefinition[],
  ): Promise<Previewed | undefined> {
    const preview = await this.imports.preview(source, fields);
    const summary = summarizePreview(preview);
    const pending = await this.store.create({
      ...upload,
      headers: preview.headers,
      mapping: preview.mapping,
      summary,
    });
    return pending && { ok: true, pending, summary };
  }

  /** Where the preview message is: recorded whatever the state (a click may come before it). */
  place(id: string, where: { channel: string; messageTs: string }): Promise<PendingImport | undefined> {
    return this.store.update(id, where);
  }

  /** Changes the group or update-existing choice; undefined when the import is no longer pending. */
  choose(
    id: string,
    change: { group?: { id?: number; newName?: string }; updateExisting?: boolean },
  ): Promise<PendingImport | undefined> {
    return this.store.update(id, change);
  }

  /** Reads the file again with the user's mapping and keeps the new preview. */
  async remap(
    id: string,
    source: ImportSource,
    mapping: ColumnMapping,
    fields: readonly FieldDefinition[],
  ): Promise<Previewed | NotPending> {
    const p = await this.get(id);
    if (p?.state !== "pending") return { ok: false, current: p };
    const preview = await this.imports.preview(source, fields, fullOverride(mapping, fields));
    const summary = summarizePreview(preview);
    const updated = await this.store.update(id, { mapping: preview.mapping, summary });
    return updated ? { ok: true, pending: updated, summary } : this.notPending(id);
  }

  /** At start: the imports an earlier process left running become "unknown" (see the store); `ids`: only these. */
  settleInterrupted(ids?: string[]): Promise<PendingImport[]> {
    return this.store.settleInterrupted(ids);
  }

  async discard(id: string, by: string): Promise<{ ok: true; pending: PendingImport } | NotPending> {
    const p = await this.store.discard(id, by);
    return p ? { ok: true, pending: p } : this.notPending(id);
  }

  /**
   * Claims the import (pending → running, once) and runs it; `done` or
   * `failed` is stored with the outcome. A second caller gets NotPending.
   */
  async run(id: string, by: string, how: RunHow): Promise<PendingRun> {
    const p = await this.store.claim(id, by, how.from);
    if (!p) return this.notPending(id);
    try {
      await how.onClaimed?.(p);
      const fields = await importFields(how.api);
      const source = await how.source(p);
      const outcome = await this.imports.run(
        {
          source,
          fileName: p.fileName,
          mapping: p.mapping as ColumnMapping,
          fields,
          total: (p.summary as PreviewSummary | undefined)?.rows ?? 0,
          groupId: p.groupId,
          newGroup: p.newGroup,
          updateExisting: p.updateExisting,
        },
        how.api,
        how.onProgress,
      );
      await this.store.finish(p.id, "done", {
        created: outcome.created,
        updated: outcome.updated,
        skipped: outcome.skipped,
        errors: outcome.failed,
        groupId: outcome.groupId,
      });
      return { ok: true, state: "done", pending: p, outcome };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      if (isImportOutcomeUnknown(err)) {
        // Not a failure: the person checks the contacts, then may click Try again.
        metrics.imports.inc({ outcome: "unknown" });
        await this.store.finish(p.id, "unknown", { unknown: true, error: error.slice(0, 500) });
        return { ok: true, state: "unknown", pending: p, unknown: err };
      }
      metrics.imports.inc({ outcome: "failed" });
      await this.store.finish(p.id, "failed", { error: error.slice(0, 500) });
      return { ok: true, state: "failed", pending: p, error };
    }
  }
}

/** A full mapping as an override: every member given, so nothing falls back to the suggestion. */
function fullOverride(m: ColumnMapping, fields: readonly FieldDefinition[]): Record<string, unknown> {
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
