// The sandbox simulates delivery: an image or document message's `mediaUrl`
// is fetched when the message is accepted, as a messaging network fetches it
// to deliver it, and a message whose media cannot be fetched, or whose content
// type does not match its type, is refused (422). The sandbox's documented
// choice (docs/sandbox.md, "Behaviour where the spec is silent"): the spec
// says only that `mediaUrl` is the location of the media.
import { unprocessable } from "./http.ts";

/** How long the fetch may take before the message is refused. */
export const MEDIA_FETCH_MS = 10_000;

/** Whether a content type fits the message type: image/* for an image; anything but an HTML page for a document. */
export function mediaTypeFits(type: "image" | "document", contentType: string): boolean {
  const ct = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (!ct) return false;
  return type === "image" ? ct.startsWith("image/") : ct !== "text/html";
}

/** Fetches the media of an image or document message; throws a 422 saying why it cannot be delivered. */
export async function checkMediaUrl(type: "image" | "document", url: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(MEDIA_FETCH_MS) });
  } catch (err) {
    const why = (err as { cause?: { code?: unknown } }).cause?.code ?? (err as Error).name;
    throw unprocessable(
      `mediaUrl ${url} could not be fetched (${String(why)}): the ${type} cannot be delivered`,
    );
  }
  await res.body?.cancel().catch(() => {});
  if (res.status !== 200)
    throw unprocessable(`mediaUrl ${url} answered HTTP ${res.status}: the ${type} cannot be delivered`);
  const contentType = res.headers.get("content-type") ?? "";
  if (!mediaTypeFits(type, contentType))
    throw unprocessable(
      `mediaUrl ${url} is ${contentType || "of no content type"}, which is not ${type === "image" ? "an image" : "a document"}: the ${type} cannot be delivered`,
    );
}
