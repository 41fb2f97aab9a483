// Step "Send a message": a text or a template to a phone, contact or chat user.
import { sendMessageStep } from "../../../commands/steps.ts";
import type { StepDef } from "./run.ts";

export const sendMessage: StepDef = { callbackId: "send_message", writes: true, run: sendMessageStep };
