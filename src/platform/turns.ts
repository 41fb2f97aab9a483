// Work on this process's one thread gives way between its parts: what arrived
// meanwhile (a Slack request to acknowledge within 3 s, its signature checked)
// is read in between, instead of after the whole of it.

/** Resolves after a turn of the event loop (setImmediate: after the I/O that is ready now). */
export const giveWay = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
