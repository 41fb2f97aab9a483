// Step "Look up a contact": by phone or e-mail; reads only (no actor input).
import { lookUpContactStep } from "../../../commands/steps.ts";
import type { StepDef } from "./run.ts";

export const lookUpContact: StepDef = {
  callbackId: "look_up_contact",
  writes: false,
  run: lookUpContactStep,
};
