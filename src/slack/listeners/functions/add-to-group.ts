// Step "Add a contact to a group": contact by id or phone, group by id or name.
import { addToGroupStep } from "../../../commands/steps.ts";
import type { StepDef } from "./run.ts";

export const addToGroup: StepDef = { callbackId: "add_contact_to_group", writes: true, run: addToGroupStep };
