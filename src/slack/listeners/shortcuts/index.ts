// Shortcuts (manifest.yml `features.shortcuts`): the forms of the commands, one click away.
import type { SlackBolt, SlackDeps } from "../../context.ts";
import { globalShortcut, SHORTCUTS } from "./open-form.ts";
import { sendToCustomer } from "./send-to-customer.ts";

export function register(app: SlackBolt, deps: SlackDeps): void {
  app.shortcut({ callback_id: SHORTCUTS.sendToCustomer, type: "message_action" }, sendToCustomer);
  app.shortcut(
    { callback_id: SHORTCUTS.send, type: "shortcut" },
    globalShortcut(deps, "send", "Send a message"),
  );
  app.shortcut(
    { callback_id: SHORTCUTS.newCampaign, type: "shortcut" },
    globalShortcut(deps, "campaign new", "New campaign"),
  );
  app.shortcut(
    { callback_id: SHORTCUTS.import, type: "shortcut" },
    globalShortcut(deps, "import", "Import contacts"),
  );
}
