// Step "Add or update a contact": by phone; custom fields merged, optional group.
import { upsertContactStep } from "../../../commands/steps.ts";
import type { StepDef } from "./run.ts";

export const upsertContact: StepDef = { callbackId: "upsert_contact", writes: true, run: upsertContactStep };
