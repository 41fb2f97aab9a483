// The rules of docs/architecture.md that matter, checked on every `npm test`.
// Folders are the top-level parts of src/ (a file at its top is a part of its
// own); type-only and dynamic imports count, between parts and between the
// files of one part.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  cycles,
  type Edge,
  importEdges,
  importsOf,
  registrationsWithMore,
  scopesMade,
  sourceFiles,
  sqlIn,
} from "./rules.ts";

const SRC = resolve(import.meta.dirname, "../../src");
const edges = importEdges(SRC);
const crossing = (e: Edge) => `${e.file} → ${e.target}`;

/** The services below the front ends: the API client, Block Kit, the domain's types, the store, the platform. */
const SERVICES = ["api", "blocks", "domain", "store", "platform"];

/** Parts that may import only what is listed (besides themselves). */
const MAY_IMPORT: Record<string, string[]> = {
  // Leaf parts: shared by the core, the reports and Slack, importing none of them.
  blocks: [],
  domain: ["api"],
  // Config, log, metrics, errors and secrets: a leaf every part may use.
  platform: [],
  // The core and the services below it know no front end.
  api: ["platform"],
  store: ["domain", "platform"],
  // Campaigns (issue 37 §6): the one road that starts one, its approval, audience, test send, held
  // starts and card. A command's context, Slack's cards and the core reach it as ports (campaigns/context.ts).
  campaigns: [...SERVICES, "timers"],
  // The claimed-once timer's runner: claim, run, record, settle what a stopped process left; each kind's work
  // (held starts in campaigns, messages sent later in commands) is given to it.
  timers: ["api", "domain", "store", "platform"],
  commands: [...SERVICES, "automations", "campaigns", "imports", "reports", "timers"],
  imports: SERVICES,
  reports: SERVICES,
  // The inbox engine: the front end's I/O is passed in (src/inbox/io.ts), so it imports none.
  inbox: SERVICES,
  // Events out (issue 40 §3): hooks and their deliveries; webhooks speak HTTP here, not through the API client.
  automations: ["domain", "store", "platform"],
  // The stand-in API shares the client's schemas and nothing else of it.
  sandbox: ["api", "store", "platform"],
  // The front ends: thin, over the core and the services.
  shell: ["blocks", "campaigns", "commands", "domain", "platform"],
  slack: [...SERVICES, "automations", "campaigns", "commands", "inbox", "imports", "reports", "timers"],
  // A workspace's runtime (its client, core, Slack parts), the registry, its background work and its
  // connection and settings (the core's WorkspaceAdmin: commands and slack see only that interface).
  workspaces: [...SERVICES, "campaigns", "commands", "inbox", "imports", "reports", "slack"],
  // Composition and start-up: imports every part; nothing imports it (src/start.js, the entry, aside).
  host: [
    "api",
    "campaigns",
    "automations",
    "commands",
    "domain",
    "imports",
    "reports",
    "sandbox",
    "shell",
    "slack",
    "store",
    "workspaces",
    "platform",
  ],
};

/** Cycles between files still open, each as the files of its circle. None: nothing may be added. */
const OPEN_FILE_CYCLES: string[][] = [];

/** The most lines a source file under src/ may have: a longer one is split along its seams. */
const MAX_LINES = 500;
/**
 * Files still over MAX_LINES (paths under src/), each being brought under it.
 * This list must shrink to empty and nothing may be added; a file on it that
 * is no longer over the limit (or gone) fails the test, so it cannot go stale.
 * Empty now: host/app.ts and the inbox poller (now src/inbox/) came under it.
 */
const OVER_500_ALLOWED: string[] = [];

describe("architecture rules", () => {
  it("reads the import graph (the check can see an edge)", () => {
    expect(edges.some((e) => e.from === "commands" && e.to === "api")).toBe(true);
    expect(
      importsOf('import type { A } from "../x.ts";\nexport { b } from "./b.ts";\nawait import("./c.ts");'),
    ).toEqual(["../x.ts", "./b.ts", "./c.ts"]);
  });

  it("the core, campaigns, the API client, imports, reports, the inbox engine and the store import neither Slack nor the shell", () => {
    const bad = edges.filter(
      (e) =>
        ["campaigns", "commands", "api", "imports", "reports", "inbox", "store"].includes(e.from) &&
        ["slack", "shell"].includes(e.to),
    );
    expect(bad.map(crossing)).toEqual([]);
  });

  it("the API client does not import the sandbox", () => {
    expect(edges.filter((e) => e.from === "api" && e.to === "sandbox").map(crossing)).toEqual([]);
  });

  it("each part imports only the parts it may", () => {
    const bad = edges.filter(
      (e) => e.from !== e.to && MAY_IMPORT[e.from] && !MAY_IMPORT[e.from]?.includes(e.to),
    );
    expect(bad.map(crossing)).toEqual([]);
  });

  it("nothing imports the host (composition and start-up), and the platform imports no other part", () => {
    expect(edges.filter((e) => e.to === "host" && e.from !== "host").map(crossing)).toEqual([]);
    expect(edges.filter((e) => e.from === "platform" && e.to !== "platform").map(crossing)).toEqual([]);
    // The check sees the host's own imports.
    expect(edges.some((e) => e.from === "host" && e.to === "slack")).toBe(true);
  });

  it("no cycle between folders", () => {
    expect(cycles(edges)).toEqual([]);
    // The check finds one when there is one.
    expect(
      cycles([
        { from: "a", to: "b" },
        { from: "b", to: "c" },
        { from: "c", to: "a" },
        { from: "c", to: "d" },
      ]),
    ).toEqual([["a", "b", "c"]]);
  });

  it("no cycle between files inside a part (type-only imports count)", () => {
    const inside = edges.filter((e) => e.from === e.to).map((e) => ({ from: e.file, to: e.target }));
    // The graph between files is read (the check can see an edge inside a part).
    expect(inside.some((e) => e.from === "imports/rows.ts" && e.to === "imports/csv-rows.ts")).toBe(true);
    const open = (circle: string[]) =>
      OPEN_FILE_CYCLES.some((known) => circle.every((f) => known.includes(f)));
    expect(cycles(inside).filter((circle) => !open(circle))).toEqual([]);
  });

  it("every error class derives from the one root (src/platform/errors.ts)", () => {
    const roots: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/class\s+(\w+)\s+extends\s+(Error|TypeError|RangeError)\b/g))
        roots.push(`${file.slice(SRC.length + 1)}: ${m[1]}`);
    }
    expect(roots).toEqual(["platform/errors.ts: SwitchboardError"]);
  });

  it("listeners are registered with the app alone: no register…(app, …) takes a second parameter", () => {
    const found: string[] = [];
    for (const file of sourceFiles(SRC))
      for (const name of registrationsWithMore(readFileSync(file, "utf8"), file))
        found.push(`${file.slice(SRC.length + 1)}: ${name}`);
    expect(found).toEqual([]);
    // The check sees one.
    expect(
      registrationsWithMore("export function registerForms(app: SlackBolt, deps: SlackDeps): void {}"),
    ).toEqual(["registerForms"]);
    expect(registrationsWithMore("export const register = (app: SlackBolt, x: X) => {};")).toEqual([
      "register",
    ]);
    expect(registrationsWithMore("export function register(app: SlackBolt): void {}")).toEqual([]);
  });

  it("a workspace scope is made only by the workspace sources", () => {
    const MAKERS = ["slack/tenancy/scope.ts", "workspaces/registry.ts"];
    const made: string[] = [];
    let byMakers = 0;
    for (const file of sourceFiles(SRC)) {
      const rel = file.slice(SRC.length + 1);
      const n = scopesMade(readFileSync(file, "utf8"));
      if (MAKERS.includes(rel)) byMakers += n;
      else if (n) made.push(rel);
    }
    expect(made).toEqual([]);
    // The check sees the makers' own.
    expect(byMakers).toBeGreaterThan(2);
    expect(scopesMade("const s = { workspace: 'T1' } as WorkspaceScope;")).toBe(1);
  });

  it(`no source file under src/ is over ${MAX_LINES} lines`, () => {
    const lines = (text: string) =>
      text.split("\n").length - 1 + (text.length > 0 && !text.endsWith("\n") ? 1 : 0);
    const over = sourceFiles(SRC)
      .map((file) => ({ file: file.slice(SRC.length + 1), n: lines(readFileSync(file, "utf8")) }))
      .filter((f) => f.n > MAX_LINES);
    expect(
      over.filter((f) => !OVER_500_ALLOWED.includes(f.file)).map((f) => `${f.file}: ${f.n} lines`),
    ).toEqual([]);
    // An allowed file that is no longer over the limit comes off the list.
    const overNames = over.map((f) => f.file);
    expect(OVER_500_ALLOWED.filter((f) => !overNames.includes(f))).toEqual([]);
    // Lines are counted as `wc -l` counts them.
    expect([lines("a\nb\n"), lines("a\nb"), lines("")]).toEqual([2, 2, 0]);
  });

  it("SQL appears only in src/store", () => {
    const found: string[] = [];
    let inStore = 0;
    for (const file of sourceFiles(SRC)) {
      const hits = sqlIn(readFileSync(file, "utf8"), file);
      if (file.startsWith(join(SRC, "store"))) inStore += hits.length;
      else found.push(...hits.map((h) => `${file.slice(SRC.length + 1)}:${h.line} ${h.text}`));
    }
    expect(found).toEqual([]);
    // The detector sees the store's own SQL, and not Slack's words.
    expect(inStore).toBeGreaterThan(50);
    expect(sqlIn('const q = "delete from slack.seen_events where x";')).toHaveLength(1);
    expect(sqlIn('const t = "Select a group from the list to add to";')).toHaveLength(0);
  });

  it("one road for a campaign: only campaigns/road.ts calls the API's campaign send (issue 37 §1)", () => {
    // `.sendCampaign(` as a call, `sendCampaign"` as an operation named by the client's hook or an audit word.
    const callers = sourceFiles(SRC)
      .filter((f) => !f.startsWith(join(SRC, "sandbox")) && !f.startsWith(join(SRC, "api")))
      .filter((f) => /\.sendCampaign\s*\(/.test(readFileSync(f, "utf8")))
      .map((f) => f.slice(SRC.length + 1));
    expect(callers).toEqual(["campaigns/road.ts"]);
    // The check sees a call as written.
    expect(/\.sendCampaign\s*\(/.test("await api.sendCampaign(mine.campaignId)")).toBe(true);
  });

  it("one card per campaign: no file outside src/campaigns draws a campaign card (issue 37 §4, §6)", () => {
    // Drawing a card: the card's Block Kit (`campaignCard(`) or its head block (`block_id: "card_head"`). Others
    // ask the campaigns part for a card (cardOf, heldCard, launchCard, progressMessage, finishedCard); the Home
    // tab's running list uses the card's head line (cardHead) for its rows, a list and not a card.
    const draws = (text: string) => /\bcampaignCard\s*\(|block_id:\s*"card_head"/.test(text);
    const outside = sourceFiles(SRC)
      .filter((f) => !f.startsWith(join(SRC, "campaigns")))
      .filter((f) => draws(readFileSync(f, "utf8")))
      .map((f) => f.slice(SRC.length + 1));
    expect(outside).toEqual([]);
    // The check sees a card drawn as written, and the campaigns part does draw them.
    expect(draws('const card = campaignCard({ id, name, status: "draft" });')).toBe(true);
    expect(draws(readFileSync(join(SRC, "campaigns", "card.ts"), "utf8"))).toBe(true);
  });
});
