// One word per idea (issue 38 §8): "scope" is a workspace's scope, and the
// scopes others name so (the messaging API key's read/write scopes, in the
// spec's own word; Slack's OAuth scopes). What a command needs to run is its
// access (`access: "write"`, `may(actor, access)`, type Access), and a bag of
// what a function needs is its deps (`ApprovalDeps`, `InboxDeps`: no type is
// named `…Access` but `Access` itself). This rule reads every line of src/,
// comments included: each `scope` must be one of the places below, else it
// fails naming the line.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./rules.ts";

const SRC = join(import.meta.dirname, "../../src");

/** A workspace's scope, wherever it is named: the branded type, its maker and sources, the rule test of its tables. */
const WORKSPACE =
  /\b(?:WorkspaceScope|workspaceScope|scopeOf|scopeOfRuntime|ScopeParts)\b|tenancy\/scope\.ts|workspace-scope\.test\.ts|workspace(?:'s)? scope/g;

/** A Slack scope by its name (`files:read scope`, `channels:read / groups:read scope`): Slack's word. */
const SLACK_NAMED = /\b[a-z]+:[a-z]+(?: \/ [a-z]+:[a-z]+)? scope\b/g;

/** Where else `scope` may be written (a path under src/, a folder ending in `/`), what it may be there, and why. */
const ALLOWED: Array<{ where: string; words: RegExp; why: string }> = [
  {
    where: "api/",
    words: /scope/gi,
    why: "the messaging API client: the spec's own word, a key's read/write scopes",
  },
  { where: "sandbox/", words: /scope/gi, why: "the sandbox implements the spec: a key's scopes" },
  { where: "store/sandbox/", words: /scope/gi, why: "the sandbox's tables: a key's scopes" },
  { where: "slack/context.ts", words: /scope/gi, why: "WorkspaceScope's definition and brand" },
  { where: "slack/tenancy/scope.ts", words: /scope/gi, why: "the one maker of a workspace's scope" },
  {
    where: "workspaces/registry.ts",
    words: /scope/gi,
    why: "the workspace source: a request's or an id's scope",
  },
  {
    where: "host/compose.ts",
    words: /\bscope\b/g,
    why: "a workspace's scope by id (scopeOf), for a held start's hooks",
  },
  {
    where: "workspaces/admin.ts",
    words: /\b(?:scopes|keyScopes)\b|case "scope"|write scope/g,
    why: "the connect check: the key's scopes as /me gives them, the API's refusal of a key that may not read",
  },
  { where: "commands/workspace-admin.ts", words: /\bscopes\b/g, why: "the key's scopes as /me gives them" },
  { where: "commands/defs/help.ts", words: /\b[Ss]copes\b/g, why: "`/sb me`: the key's scopes" },
  {
    where: "commands/errors.ts",
    words: /write scope/g,
    why: "the API refused a write: the key lacks the write scope",
  },
  {
    where: "slack/features/home/view.ts",
    words: /\bscopes\b/g,
    why: "the Home tab's API key line: its scopes",
  },
  {
    where: "store/installations/",
    words: /\b(?:scopes|keyScopes|key_scopes|bot_scopes|user_scopes)\b|user scopes/g,
    why: "the key's scopes; Slack's bot and user scopes of an installation",
  },
  {
    where: "slack/tenancy/oauth.ts",
    words: /\b(?:scopes|manifestScopes)\b|`- scope`/g,
    why: "Slack's OAuth scopes",
  },
  { where: "slack/tenancy/installation-store.ts", words: /\bscopes\b/g, why: "Slack's OAuth scopes" },
  {
    where: "host/many-workspaces.ts",
    words: /\b(?:scopes|manifestScopes)\b/g,
    why: "Slack's OAuth scopes, for Add to Slack",
  },
  { where: "slack/features/inbox/media.ts", words: /adds the scope/g, why: "Slack's files:read scope" },
];

/** The lines of a file (its path under src/) where a `scope` is left once the allowed words are taken out. */
function strayScopes(name: string, text: string): string[] {
  const rules = ALLOWED.filter((a) => (a.where.endsWith("/") ? name.startsWith(a.where) : name === a.where));
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    let rest = line.replace(WORKSPACE, "").replace(SLACK_NAMED, "");
    for (const r of rules) rest = rest.replace(r.words, "");
    if (/scope/i.test(rest)) found.push(`src/${name}:${i + 1}: ${line.trim()}`);
  });
  return found;
}

describe("one word per idea: scope", () => {
  it("finds a command's access written as a scope, and leaves a workspace's scope and a key's scopes", () => {
    expect(strayScopes("commands/core.ts", "const ok = await may(actor, scope);")).toHaveLength(1);
    expect(strayScopes("commands/defs/tags.ts", '    scope: "write",')).toHaveLength(1);
    expect(strayScopes("campaigns/approval.ts", "export interface ApprovalScope {")).toHaveLength(1);
    expect(strayScopes("slack/perform.ts", "// it checks the person's scope")).toHaveLength(1);
    expect(
      strayScopes("workspaces/admin.ts", "may: (userId, scope) => core.may(userId, scope),"),
    ).toHaveLength(1);
    expect(
      strayScopes("slack/listeners/on.ts", "const ws: WorkspaceScope = await source.scopeOf(id);"),
    ).toEqual([]);
    expect(strayScopes("workspaces/admin.ts", "...(c.keyScopes ? { scopes: c.keyScopes } : {}),")).toEqual(
      [],
    );
    expect(
      strayScopes("slack/features/uploads/download.ts", "Check that the app has the files:read scope."),
    ).toEqual([]);
    expect(strayScopes("sandbox/app.ts", "if (!key.scopes.includes(scope)) throw")).toEqual([]);
  });

  it("every `scope` in src/ is a workspace's scope, the messaging API key's scopes or Slack's", () => {
    const stray = sourceFiles(SRC).flatMap((file) =>
      strayScopes(relative(SRC, file).split("\\").join("/"), readFileSync(file, "utf8")),
    );
    expect(stray, "a command's permission is its access; a bag of what a function needs, its deps").toEqual(
      [],
    );
  });
});

/** A type named for access that is not `Access` itself: a bag of dependencies (`ApprovalAccess`), which is `…Deps`. */
const ACCESS_BAG = /\b[A-Z]\w*Access\b/g;

describe("one word per idea: access", () => {
  it("finds a bag of dependencies named access, and leaves a command's access", () => {
    expect("export interface InboxAccess {".match(ACCESS_BAG)).toEqual(["InboxAccess"]);
    expect('may(actor, access: Access = "write")'.match(ACCESS_BAG)).toBeNull();
  });

  it("`access` in src/ is a command's permission (type Access): a bag of what a function needs is its …Deps", () => {
    const stray = sourceFiles(SRC).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) =>
          ACCESS_BAG.test(line) ? [`src/${relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(stray).toEqual([]);
  });
});
