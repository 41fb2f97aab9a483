// Modal submissions. The command core answers with `Reply.modal`; the forms of
// the modals issue (campaign, message, template, import) register their
// view_submission handlers here, one file each.
import type { App } from "@slack/bolt";
import type { SlackDeps } from "../../deps.ts";

export function register(_app: App, _deps: SlackDeps): void {}
