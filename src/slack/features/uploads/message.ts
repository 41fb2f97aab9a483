// The messages of an upload's thread: the preview with its controls (group,
// update existing, change the mapping, Import, Discard), the progress of a
// running import, and the outcome; all drawn from what the imports service
// returns (its PreviewSummary, ImportOutcome and pending import).
import type { KnownBlock, PlainTextOption } from "@slack/types";
import type { Group } from "../../../api/types.ts";
import { ACTION } from "../../../blocks/actions.ts";
import { context, esc, num, section, truncate } from "../../../blocks/blocks.ts";
import { textOfRecord } from "../../../commands/lookups.ts";
import {
  countryNeeded,
  type ImportOutcome,
  outcomeCounts,
  type PreviewSummary,
  repeatsLine,
  skippedLines,
  targetLabel,
} from "../../../imports/index.ts";
import type { PendingImport } from "../../../store/imports.ts";
import { cut, option } from "../../forms/kit.ts";

export const IMPORT_ACTIONS = {
  group: "sb_imp_group",
  update: "sb_imp_update",
  mapping: "sb_imp_mapping",
  run: "sb_imp_run",
  discard: "sb_imp_discard",
  retry: "sb_imp_retry",
} as const;

const NO_GROUP = "none";
const NEW_GROUP = "new";

export function groupOptions(groups: Group[], fileName: string): PlainTextOption[] {
  return [
    option("No group", NO_GROUP),
    option(`➕ New group “${newGroupName(fileName)}”`, NEW_GROUP),
    ...groups
      .filter((g) => g.id !== undefined)
      .slice(0, 98)
      .map((g) => option(textOfRecord(g, "name") || `#${g.id}`, String(g.id))),
  ];
}

export const newGroupName = (fileName: string) =>
  cut(fileName.replace(/\.[^.]*$/, "") || "Imported contacts", 60);

export function parseGroupChoice(
  value: string | undefined,
  fileName: string,
): { id?: number; newName?: string } {
  if (!value || value === NO_GROUP) return {};
  if (value === NEW_GROUP) return { newName: newGroupName(fileName) };
  const id = Number(value);
  return Number.isInteger(id) && id > 0 ? { id } : {};
}

function previewBody(p: PendingImport, s: PreviewSummary): KnownBlock[] {
  const blocks: KnownBlock[] = [
    { type: "header", text: { type: "plain_text", text: truncate(`Import preview: ${p.fileName}`, 150) } },
    {
      type: "section",
      fields: [
        { type: "mrkdwn", text: `*Rows*\n${num(s.rows)}` },
        // What will be sent, not what will be created: the API skips (or updates) contacts that exist.
        { type: "mrkdwn", text: `*Valid rows*\n${num(s.valid)}` },
        { type: "mrkdwn", text: `*Will fail*\n${num(s.failed)}` },
        ...(s.repeated
          ? [{ type: "mrkdwn" as const, text: `*Repeated in the file*\n${num(s.repeated)} (skipped)` }]
          : []),
        { type: "mrkdwn", text: `*File*\n${esc(s.format)}` },
      ],
    },
  ];
  const used = s.columns.filter((c) => c.target);
  const ignored = s.columns.filter((c) => !c.target);
  blocks.push(
    section(
      `*Columns*\n${used.map((c) => `• ${esc(targetLabel(c.target as string, s.labels))} ← “${esc(c.header)}” (column ${c.letter})`).join("\n") || "• none"}${
        ignored.length
          ? `\n_Ignored: ${ignored.map((c) => `“${esc(c.header)}” (${c.letter})`).join(", ")}_`
          : ""
      }`,
    ),
  );
  for (const problem of s.problems) blocks.push(section(`:warning: ${esc(problem)}`));
  for (const warning of s.warnings ?? []) blocks.push(section(`:warning: ${esc(warning)}`));
  if (s.samples.length) {
    // The order the preview had: the stored summary (jsonb) does not keep an object's key order.
    const order = s.sampleKeys ?? Object.keys(s.samples[0]!.contact);
    const keys = order.filter((k) => s.samples.some((x) => x.contact[k]));
    const lines = s.samples.map(
      (x) => `${String(x.row).padStart(4)}  ${keys.map((k) => x.contact[k] || "·").join(" · ")}`,
    );
    blocks.push(
      section(
        `*Sample* (row  ${esc(keys.map((k) => targetLabel(k, s.labels)).join(" · "))})\n\`\`\`${esc(lines.join("\n"))}\`\`\``,
      ),
    );
  }
  if (s.failures.length) {
    const more = s.failed - s.failures.length;
    blocks.push(
      section(
        `*Rows that will fail*\n${s.failures.map((f) => `• row ${f.row}${f.phone ? ` (${esc(f.phone)})` : ""}: ${esc(f.reason)}`).join("\n")}${more > 0 ? `\n… and ${more} more (all of them in the errors file after the import)` : ""}`,
      ),
    );
  }
  const repeats = repeatsLine(s);
  if (repeats) blocks.push(context(repeats));
  const country = countryNeeded(s);
  if (country) blocks.push(section(`:globe_with_meridians: ${esc(country)}`));
  return blocks;
}

export function previewMessage(
  p: PendingImport,
  s: PreviewSummary,
  groups: Group[],
  opts: { settings?: boolean } = {},
): { text: string; blocks: KnownBlock[] } {
  const blocks = previewBody(p, s);
  // The count above is of rows sent; what becomes of a contact that exists is the choice below
  // (the message is not redrawn when it changes, so the line names both).
  if (s.valid > 0)
    blocks.push(
      context(
        "Valid rows are sent to the import: a new phone becomes a contact; a phone that is already a contact is skipped or updated, as chosen below, not created twice.",
      ),
    );
  // Numbers that need a country while none is set: the uploader, an admin, can set one.
  if (opts.settings)
    blocks.push({
      type: "actions",
      elements: [
        {
          type: "button",
          action_id: ACTION.run,
          text: { type: "plain_text", text: "Settings" },
          value: "settings",
        },
      ],
    });
  const groupOpts = groupOptions(groups, p.fileName);
  const chosenGroup = p.newGroup ? NEW_GROUP : p.groupId ? String(p.groupId) : NO_GROUP;
  const updateOpts = [option("Skip contacts that exist", "no"), option("Update contacts that exist", "yes")];
  const canImport = s.problems.length === 0 && s.valid > 0;
  blocks.push({
    type: "actions",
    block_id: `imp:${p.id}`,
    elements: [
      {
        type: "static_select",
        action_id: IMPORT_ACTIONS.group,
        options: groupOpts,
        initial_option: groupOpts.find((o) => o.value === chosenGroup) ?? groupOpts[0],
      },
      {
        type: "static_select",
        action_id: IMPORT_ACTIONS.update,
        options: updateOpts,
        initial_option: updateOpts[p.updateExisting ? 1 : 0],
      },
      {
        type: "button",
        action_id: IMPORT_ACTIONS.mapping,
        text: { type: "plain_text", text: "Change mapping" },
        value: p.id,
      },
      ...(canImport
        ? [
            {
              type: "button" as const,
              action_id: IMPORT_ACTIONS.run,
              style: "primary" as const,
              text: {
                type: "plain_text" as const,
                text: `Import ${s.valid} valid row${s.valid === 1 ? "" : "s"}`,
              },
              value: p.id,
            },
          ]
        : []),
      {
        type: "button",
        action_id: IMPORT_ACTIONS.discard,
        style: "danger",
        text: { type: "plain_text", text: "Discard" },
        value: p.id,
      },
    ],
  } as KnownBlock);
  blocks.push(
    context(
      `Uploaded by <@${p.userId}>. Nothing is imported until someone allowed to make changes clicks Import.`,
    ),
  );
  return {
    text: `Import preview of ${esc(p.fileName)}: ${num(s.rows)} rows, ${num(s.valid)} valid, ${num(s.failed)} will fail${s.repeated ? `, ${num(s.repeated)} repeated (skipped)` : ""}`,
    blocks,
  };
}

export function progressMessage(
  p: PendingImport,
  s: PreviewSummary,
  rows: number,
  by: string,
): { text: string; blocks: KnownBlock[] } {
  const pct = s.rows ? Math.min(100, Math.floor((rows / s.rows) * 100)) : 0;
  const bar = `${"█".repeat(Math.floor(pct / 5))}${"░".repeat(20 - Math.floor(pct / 5))}`;
  const done = `${num(rows)} of ${num(s.rows)} rows`;
  return {
    text: `Importing ${esc(p.fileName)}… ${done} (${pct}%)`,
    blocks: [
      ...previewBody(p, s),
      section(`:hourglass_flowing_sand: *Importing…* ${done} (${pct}%)\n\`${bar}\``),
      context(`Started by <@${by}>. The outcome will be posted in this thread.`),
    ],
  };
}

export function closedMessage(
  p: PendingImport,
  s: PreviewSummary,
  line: string,
): { text: string; blocks: KnownBlock[] } {
  return { text: `${esc(p.fileName)}: ${line}`, blocks: [...previewBody(p, s), section(line)] };
}

/**
 * An import a stopped process was carrying out (settled at start): some, all
 * or none of its rows may be in, so the message says what to check, and Try
 * again imports the file again only when a person clicks it.
 */
export function unknownMessage(
  p: PendingImport,
  s: PreviewSummary,
  /** Why the outcome is unknown; default: Switchboard restarted while importing. */
  why?: string,
): { text: string; blocks: KnownBlock[] } {
  const rows = `${num(s.valid)} contact${s.valid === 1 ? "" : "s"}`;
  const group = p.groupId
    ? `, and the group's members (\`/sb contacts group=${p.groupId}\`)`
    : p.newGroup
      ? `, and whether a group “${esc(p.newGroup)}” was created (\`/sb groups\`)`
      : "";
  const cause = why ?? "Switchboard restarted";
  const sample = s.samples.map((x) => x.contact.phone).find((ph) => typeof ph === "string" && ph);
  const line =
    `:warning: *Outcome unknown*: ${esc(cause)} while importing ${esc(p.fileName)}, so some, all or none of its ${rows} may have been imported. ` +
    `Check the contacts before trying again: their count (\`/sb contacts\`), a few numbers of the file (\`/sb contacts ${sample ? esc(sample) : "<number>"}\`)${group}. ` +
    `Try again imports the file once more: contacts already there are ${p.updateExisting ? "updated" : "skipped"}, not created twice.`;
  const check = (text: string, value: string, n: number) => ({
    type: "button",
    action_id: `${ACTION.run}:${n}`,
    text: { type: "plain_text", text: truncate(text, 75) },
    value,
  });
  const checks = [
    check("Check contacts", p.groupId ? `contacts group=${p.groupId}` : "contacts", 1),
    ...(sample ? [check(`Look up ${sample}`, `contacts ${sample}`, 2)] : []),
  ];
  return {
    text: `${esc(p.fileName)}: the import's outcome is unknown (${esc(cause)}); check the contacts before trying again.`,
    blocks: [
      ...previewBody(p, s),
      section(line),
      {
        type: "actions",
        block_id: `imp:${p.id}`,
        elements: [
          ...checks,
          {
            type: "button",
            action_id: IMPORT_ACTIONS.retry,
            text: { type: "plain_text", text: "Try again" },
            value: p.id,
            confirm: {
              title: { type: "plain_text", text: "Import again?" },
              text: {
                type: "plain_text",
                text: truncate(
                  `Import ${p.fileName} again? Check the contacts first: some may already be in.`,
                  300,
                ),
              },
              confirm: { type: "plain_text", text: "Import again" },
              deny: { type: "plain_text", text: "Cancel" },
            },
          },
        ],
      } as KnownBlock,
    ],
  };
}

/** The outcome: counts, the group the contacts went to, then the rows skipped and why (a few). */
export function importedLine(o: ImportOutcome, by: string): string {
  const group = o.groupId
    ? `; added to group #${o.groupId}${o.newGroup ? ` “${esc(o.newGroup.name)}” (new)` : ""}`
    : "";
  const skipped = skippedLines(o).map((l) => `\n• ${esc(l)}`);
  return `:white_check_mark: *Imported* by <@${by}>: ${esc(outcomeCounts(o))}${group}.${skipped.length ? `\nSkipped:${skipped.join("")}` : ""}`;
}

export const failedLine = (error: string): string =>
  `:x: The import failed: ${esc(error.slice(0, 500))}. Share the file again to retry.`;

/** What the clicker is told when the import is no longer pending. */
export function alreadyDecided(p: PendingImport | undefined): string {
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
    case "unknown":
      return `The outcome of the import started by ${by}${at} is unknown (Switchboard restarted): check the contacts, then click Try again on its message to import it again.`;
    default:
      return "This import cannot be started now.";
  }
}
