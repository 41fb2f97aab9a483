// Request schemas of the External Messaging API, written once from the spec
// (../shared/spec/external-messaging-api.md) and shared by the client (which
// refuses bad input before any request) and the sandbox (which answers 400).
// Every object is strict: the real service whitelists its input, so an
// unknown member is an error here too, not something silently dropped.
//
// This file is the facade of src/api/schemas/, one file per part of the spec:
// enums.ts, scalars.ts, conversations.ts (messages, chat users), contacts.ts,
// catalog.ts (fields, groups, tags), templates.ts, campaigns.ts; problems.ts:
// zod's errors in plain words. rules.ts (shared wording) stays inside.

export * from "./schemas/campaigns.ts";
export * from "./schemas/catalog.ts";
export * from "./schemas/contacts.ts";
export * from "./schemas/conversations.ts";
export * from "./schemas/enums.ts";
export * from "./schemas/problems.ts";
export * from "./schemas/scalars.ts";
export * from "./schemas/templates.ts";
