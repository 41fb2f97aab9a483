// A workspace's settings as the settings forms are given them (each value
// with where it came from): every one at its default. A test sets the ones it
// reads over them:  { ...DEFAULT_SETTINGS, writers: { value: ["U0ALICE"], origin } }
const origin = { kind: "default" } as const;

export const DEFAULT_SETTINGS = {
  writers: { value: [] as string[], origin },
  broadcasters: { value: [] as string[], origin },
  auditChannel: { value: undefined, origin },
  messagingChannel: { value: undefined, origin },
  reportsTimeZone: { value: undefined, origin },
  workflowSteps: { value: "writers" as const, origin },
  country: { value: undefined, origin },
  away: { value: undefined, origin },
  awayNow: { value: undefined, origin },
  quietHours: { value: undefined, origin },
  businessHours: { value: undefined, origin },
  approvers: { value: [] as string[], origin },
  approveFrom: { value: undefined, origin },
};
