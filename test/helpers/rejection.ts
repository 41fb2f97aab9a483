/** The error a promise rejects with; fails the test when it resolves instead. */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the call to fail");
}

/** The Slack Web API error code a call failed with (`invalid_auth`…); undefined when it succeeded. */
export async function slackError(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return (err as { data?: { error?: string } }).data?.error;
  }
}
