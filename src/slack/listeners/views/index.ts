// Modal submissions. The command core answers with `Reply.modal`; each form
// registers its view_submission handler here, one file each.
import type { App } from "@slack/bolt";
import type { SlackDeps } from "../../deps.ts";
import { CAMPAIGN_CALLBACK } from "../../modals/campaign.ts";
import { IMPORT_CALLBACK } from "../../modals/import.ts";
import { MAPPING_CALLBACK } from "../../modals/mapping.ts";
import { CONTACT_EDIT_CALLBACK, USER_EDIT_CALLBACK } from "../../modals/record-edit.ts";
import { SEND_CALLBACK } from "../../modals/send.ts";
import { TEMPLATE_CALLBACK } from "../../modals/template.ts";
import { campaignSubmitted } from "./campaign.ts";
import { importSubmitted, mappingSubmitted } from "./import.ts";
import { contactEditSubmitted, userEditSubmitted } from "./record-edit.ts";
import { sendSubmitted } from "./send.ts";
import { templateSubmitted } from "./template.ts";

export function register(app: App, deps: SlackDeps): void {
  app.view(CAMPAIGN_CALLBACK, campaignSubmitted(deps));
  app.view(SEND_CALLBACK, sendSubmitted(deps));
  app.view(TEMPLATE_CALLBACK, templateSubmitted(deps));
  app.view(CONTACT_EDIT_CALLBACK, contactEditSubmitted(deps));
  app.view(USER_EDIT_CALLBACK, userEditSubmitted(deps));
  app.view(IMPORT_CALLBACK, importSubmitted(deps));
  app.view(MAPPING_CALLBACK, mappingSubmitted(deps));
}
