// manifest.yml must be accepted by Slack: it is checked against Slack's
// published manifest schema (copied, with its MIT license, under
// test/fixtures/manifest-schema), and against what the app actually uses.
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { STEPS } from "../../src/slack/listeners/functions/index.ts";

const dir = new URL("../fixtures/manifest-schema/", import.meta.url);
const readJson = (path: string) => JSON.parse(readFileSync(new URL(path, dir), "utf8"));
const BASE = "https://raw.githubusercontent.com/slackapi/manifest-schema/v0.5.0/schemas/";

let validate: ValidateFunction;
interface Manifest {
  display_information: Record<string, unknown>;
  features: { slash_commands: Array<Record<string, unknown>>; app_home: Record<string, unknown> };
  oauth_config: { scopes: { bot: string[]; user?: string[] } };
  settings: Record<string, unknown> & {
    interactivity: { is_enabled: boolean };
    event_subscriptions: { bot_events: string[] };
  };
}
const manifest = (): Manifest => parse(readFileSync(new URL("../../manifest.yml", import.meta.url), "utf8"));

beforeAll(() => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  // Slack's schema writes some patterns under a non-standard `regex` keyword: check them as patterns.
  ajv.addKeyword({
    keyword: "regex",
    type: "string",
    schemaType: "string",
    validate: (re: string, data: string) => new RegExp(re).test(data),
  });
  ajv.addSchema(readJson("schemas/manifest.schema.1.0.0.json"), `${BASE}manifest.schema.1.0.0.json`);
  ajv.addSchema(readJson("schemas/manifest.schema.2.0.0.json"), `${BASE}manifest.schema.2.0.0.json`);
  validate = ajv.compile(readJson("manifest.schema.json"));
});

describe("manifest.yml", () => {
  it("is valid against Slack's manifest schema", () => {
    const ok = validate(manifest());
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("is checked for real: the schema refuses broken manifests", () => {
    const broken = manifest();
    broken.features.slash_commands[0] = { ...broken.features.slash_commands[0], command: "sb" };
    expect(validate(broken)).toBe(false);
    const unknown = manifest();
    unknown.settings.socket_mode = true;
    expect(validate(unknown)).toBe(false);
    const color = manifest();
    color.display_information.background_color = "blue!!";
    expect(validate(color)).toBe(false);
  });

  it("declares /sb with escaping, Socket Mode, interactivity, the Home tab and the events the app handles", () => {
    const m = manifest();
    expect(m.features.slash_commands).toEqual([
      expect.objectContaining({ command: "/sb", should_escape: true }),
    ]);
    expect(m.settings.socket_mode_enabled).toBe(true);
    expect(m.settings.interactivity.is_enabled).toBe(true);
    expect(m.features.app_home.home_tab_enabled).toBe(true);
    expect([...m.settings.event_subscriptions.bot_events].sort()).toEqual([
      "app_home_opened",
      "file_shared",
      "function_executed",
      "message.channels",
      "message.groups",
    ]);
  });

  type WithFunctions = Manifest & {
    functions: Record<string, { input_parameters: Record<string, { type: string; is_required?: boolean }> }>;
  };

  it("declares the Workflow Builder steps the app handles, org-ready with a remote runtime", () => {
    const m = manifest() as WithFunctions;
    expect(m.settings.org_deploy_enabled).toBe(true);
    expect(m.settings.function_runtime).toBe("remote");
    expect(Object.keys(m.functions).sort()).toEqual(STEPS.map((s) => s.callbackId).sort());
    const broken = manifest() as unknown as { functions: Record<string, Record<string, unknown>> };
    delete broken.functions.send_message!.title;
    expect(validate(broken)).toBe(false);
  });

  // A writing step names who it writes for; a look-up does not.
  it.each(STEPS.map((step) => [step.callbackId, step] as const))(
    "step %s asks for an actor exactly when it writes",
    (callbackId, step) => {
      const actor = (manifest() as WithFunctions).functions[callbackId]?.input_parameters.actor;
      if (step.writes)
        expect(actor).toEqual(expect.objectContaining({ type: "slack#/types/user_id", is_required: true }));
      else expect(actor).toBeUndefined();
    },
  );

  it("asks for the bot scopes it uses and no more", () => {
    expect([...manifest().oauth_config.scopes.bot].sort()).toEqual(
      [
        "channels:history",
        "channels:join",
        "chat:write",
        "chat:write.public",
        "groups:history",
        "reactions:write",
        "commands",
        "files:read",
        "files:write",
        "usergroups:read",
        "users:read",
      ].sort(),
    );
    expect(manifest().oauth_config.scopes.user).toBeUndefined();
  });
});

describe("manifest.many-workspaces.yml (many workspaces)", () => {
  const manyWorkspaces = (): Manifest & { oauth_config: { redirect_urls?: string[] } } =>
    parse(readFileSync(new URL("../../manifest.many-workspaces.yml", import.meta.url), "utf8"));

  it("is valid against Slack's manifest schema", () => {
    const ok = validate(manyWorkspaces());
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("is manifest.yml with HTTP only, token rotation, the redirect URL and the leaving events", () => {
    const d = manyWorkspaces();
    expect(d.settings.socket_mode_enabled).toBe(false);
    expect(d.settings.token_rotation_enabled).toBe(true);
    expect(d.oauth_config.redirect_urls).toEqual(["https://switchboard.example.com/slack/oauth_redirect"]);
    expect(d.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(["app_uninstalled", "tokens_revoked"]),
    );
    // Everything else is the same app: commands, shortcuts, scopes, steps, the other events.
    const same = (m: Manifest & { oauth_config: { redirect_urls?: string[] } }) => {
      const copy = structuredClone(m);
      delete copy.oauth_config.redirect_urls;
      delete copy.settings.socket_mode_enabled;
      delete copy.settings.token_rotation_enabled;
      copy.settings.event_subscriptions.bot_events = copy.settings.event_subscriptions.bot_events.filter(
        (e) => e !== "app_uninstalled" && e !== "tokens_revoked",
      );
      return copy;
    };
    expect(same(d)).toEqual(same(manifest()));
  });
});
