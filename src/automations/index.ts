// Events out (issue 40 §3, docs/automations.md): the folder's public names.
export { isPrivateAddress, maskHookLine, maskUrl } from "./address.ts";
export { EVENT_TYPES, EVENTS, type EventType, isConversationEvent, workflowVariables } from "./events.ts";
export { eventOfAudit } from "./from-audit.ts";
export { SIGNATURE_HEADER, signatureOf, verifySignature } from "./send.ts";
export {
  type AddOutcome,
  type AutomationDeps,
  Automations,
  type DeliveryQueue,
  resealAutomations,
} from "./service.ts";
export {
  ATTEMPTS_PER_HOOK,
  AUTOMATIONS_BOSS,
  AUTOMATIONS_QUEUE,
  AutomationWorker,
  type WorkerOptions,
} from "./worker.ts";
