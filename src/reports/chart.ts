// The statuses of a report as a picture: one stacked horizontal bar per
// campaign and a legend, drawn as SVG and rasterized to PNG by resvg (a
// prebuilt Rust binary from npm; no browser, no canvas build).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as ResvgModule from "@resvg/resvg-js";
import type { ReportFile } from "./render.ts";
import { type CampaignSummary, STATUSES } from "./summary.ts";

const require = createRequire(import.meta.url);
const fontDir = join(dirname(require.resolve("dejavu-fonts-ttf/package.json")), "ttf");
const FONT_FILES = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"].map((f) => join(fontDir, f));

/** One colour per recipient status, in pipeline order (colour-blind friendly, Okabe–Ito based). */
export const STATUS_COLORS: Record<(typeof STATUSES)[number], string> = {
  pending: "#BBBBBB",
  sending: "#56B4E9",
  sent: "#0072B2",
  delivered: "#009E73",
  read: "#006D4F",
  failed: "#D55E00",
  skipped: "#E6C229",
};

/** Rows drawn; more campaigns are summed up in a last line of text. */
export const CHART_ROWS = 25;

const W = 900;
const LABEL_W = 250;
const RIGHT_W = 110;
const ROW_H = 34;
const BAR_H = 20;
const TOP = 56;
const LEGEND_H = 52;
const FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif";

const xml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

export function chartSvg(campaigns: CampaignSummary[], title: string): string {
  const rows = campaigns.slice(0, CHART_ROWS);
  const extra = campaigns.length - rows.length;
  const height = TOP + Math.max(1, rows.length) * ROW_H + (extra > 0 ? 24 : 0) + LEGEND_H;
  const barW = W - LABEL_W - RIGHT_W - 20;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="${FONT}">`,
    `<rect width="${W}" height="${height}" fill="#FFFFFF"/>`,
    `<text x="20" y="32" font-size="18" font-weight="bold" fill="#1D1C1D">${xml(clip(title, 80))}</text>`,
  ];
  if (rows.length === 0) {
    parts.push(`<text x="20" y="${TOP + 22}" font-size="14" fill="#616061">No campaigns.</text>`);
  }
  rows.forEach((c, i) => {
    const y = TOP + i * ROW_H;
    const label = `${clip(c.name, 24)} (#${c.id})`;
    parts.push(`<text x="20" y="${y + 15}" font-size="13" fill="#1D1C1D">${xml(label)}</text>`);
    let x = LABEL_W;
    if (c.total === 0) {
      parts.push(
        `<rect x="${x}" y="${y}" width="${barW}" height="${BAR_H}" fill="#F4F4F4" stroke="#DDDDDD"/>`,
      );
    } else {
      for (const s of STATUSES) {
        const w = (c.counts[s] / c.total) * barW;
        if (w <= 0) continue;
        parts.push(
          `<rect x="${x.toFixed(2)}" y="${y}" width="${Math.max(w, 0.5).toFixed(2)}" height="${BAR_H}" fill="${STATUS_COLORS[s]}"/>`,
        );
        x += w;
      }
    }
    const right = `${c.total.toLocaleString("en-US")}${c.partial ? "+" : ""}`;
    parts.push(
      `<text x="${W - 20}" y="${y + 15}" font-size="13" text-anchor="end" fill="#616061">${xml(right)}</text>`,
    );
  });
  let y = TOP + Math.max(1, rows.length) * ROW_H;
  if (extra > 0) {
    parts.push(
      `<text x="20" y="${y + 12}" font-size="13" fill="#616061">…and ${extra} more campaigns</text>`,
    );
    y += 24;
  }
  // Legend: swatches in one row across the width.
  const step = (W - 40) / STATUSES.length;
  STATUSES.forEach((s, i) => {
    const lx = 20 + i * step;
    parts.push(`<rect x="${lx}" y="${y + 16}" width="14" height="14" fill="${STATUS_COLORS[s]}"/>`);
    parts.push(`<text x="${lx + 20}" y="${y + 28}" font-size="13" fill="#1D1C1D">${s}</text>`);
  });
  parts.push("</svg>");
  return parts.join("\n");
}

// A native library only reports with a chart need: loaded at the first chart, not at start.
// state: the process's: a native module loaded once, at the first chart.
let resvg: typeof ResvgModule | undefined;
const loadResvg = () => (resvg ??= require("@resvg/resvg-js") as typeof ResvgModule);

/** The chart as PNG bytes. */
export function chartPng(campaigns: CampaignSummary[], title: string): Uint8Array {
  const svg = chartSvg(campaigns, title);
  // The font ships with the app (dejavu-fonts-ttf), so the labels render the
  // same on any machine, with or without system fonts.
  const r = new (loadResvg().Resvg)(svg, {
    font: { loadSystemFonts: false, fontFiles: FONT_FILES, defaultFontFamily: "DejaVu Sans" },
    background: "#FFFFFF",
  });
  return r.render().asPng();
}

export function chartFile(campaigns: CampaignSummary[], title: string, stamp: string): ReportFile {
  const alt = campaigns
    .slice(0, 10)
    .map(
      (c) =>
        `${c.name}: ${
          STATUSES.filter((s) => c.counts[s] > 0)
            .map((s) => `${c.counts[s]} ${s}`)
            .join(", ") || "no recipients"
        }`,
    )
    .join("; ");
  return {
    filename: `campaign-report-${stamp}.png`,
    title,
    altText: clip(`Recipient statuses by campaign. ${alt}`, 1000),
    content: chartPng(campaigns, title),
  };
}
