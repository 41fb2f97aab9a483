// Workflow Builder custom steps (manifest.yml `functions`), one file per step;
// run.ts does what they share. Registered whatever WORKFLOW_STEPS says, so a
// step on a setup that turned them off fails in words instead of hanging.
import type { SlackBolt } from "../../context.ts";
import { onFunction } from "../on.ts";
import { addToGroup } from "./add-to-group.ts";
import { lookUpContact } from "./look-up-contact.ts";
import { stepListener } from "./run.ts";
import { sendMessage } from "./send-message.ts";
import { upsertContact } from "./upsert-contact.ts";

export const STEPS = [sendMessage, upsertContact, addToGroup, lookUpContact];

export function register(app: SlackBolt): void {
  for (const step of STEPS) onFunction(app, step.callbackId, stepListener(step));
}
