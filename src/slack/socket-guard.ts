// @slack/socket-mode reads each WebSocket frame in an async handler outside any
// listener: a frame it does not expect (the text `null`, an `events_api`
// envelope without `payload.event`) throws a TypeError there, an unhandled
// rejection that ends the process. This guard sits in front of that handler:
// a frame that is not an envelope is logged and dropped (acked when it has an
// envelope id, so Slack does not send it again), and whatever the handler
// still throws is logged; the process keeps running.
import type { SocketModeReceiver } from "@slack/bolt";
import type { Logger } from "../platform/log.ts";

type FrameHandler = (data: unknown, isBinary: boolean) => unknown;

/** What is wrong with a frame, or undefined when the library can read it. */
export function malformedFrame(data: unknown, isBinary: boolean): string | undefined {
  if (isBinary) return undefined; // the library ignores binary frames itself
  const text = typeof data === "string" ? data : new TextDecoder().decode(data as ArrayBuffer);
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return undefined; // the library ignores what is not JSON itself
  }
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return "not an object";
  const { type, payload } = frame as { type?: unknown; payload?: { event?: { type?: unknown } } };
  if (typeof type !== "string") return "no type";
  if (type === "events_api" && typeof payload?.event?.type !== "string")
    return "an events_api envelope without an event";
  return undefined;
}

export function guardSocketFrames(client: SocketModeReceiver["client"], logger: Logger): void {
  const handlers = client.listeners("ws_message") as FrameHandler[];
  client.removeAllListeners("ws_message");
  const envelopeId = (data: unknown): string | undefined => {
    try {
      const id = (JSON.parse(String(data)) as { envelope_id?: unknown })?.envelope_id;
      return typeof id === "string" ? id : undefined;
    } catch {
      return undefined;
    }
  };
  client.on("ws_message", (data: unknown, isBinary: boolean) => {
    const wrong = malformedFrame(data, isBinary);
    if (wrong) {
      logger.warn({ problem: wrong }, "ignored a malformed Socket Mode frame");
      const id = envelopeId(data);
      // Acked (the library's own, private, send) so that Slack does not deliver it again.
      if (id) (client as unknown as { send(id: string): Promise<void> }).send(id).catch(() => {});
      return;
    }
    for (const handler of handlers) {
      Promise.resolve()
        .then(() => handler(data, isBinary))
        .catch((err: unknown) =>
          logger.error(
            { err: (err as Error)?.message },
            "a Socket Mode frame could not be handled; carrying on",
          ),
        );
    }
  });
}
