// A file too large for a customer is refused in words: the limit as a person
// reads it ("images up to 5 MB"), never the name of the server's setting.
import { describe, expect, it } from "vitest";
import { checkMedia, type MediaConfig } from "../../src/slack/features/inbox/media.ts";

const config: MediaConfig = {
  PUBLIC_URL: "https://sb.example.com",
  MEDIA_TTL_HOURS: 24,
  MEDIA_MAX_IMAGE_MB: 5,
  MEDIA_MAX_DOCUMENT_MB: 20,
  SLACK_API_URL: "https://slack.com/api/",
};
const MB = 1024 * 1024;

describe("a file too large for a customer", () => {
  it.each([
    [
      "huge.png",
      "image/png",
      5 * MB + 1,
      "huge.png is 5.0 MB, too large to send to a customer: images up to 5 MB can be sent.",
    ],
    [
      "terms.pdf",
      "application/pdf",
      21 * MB,
      "terms.pdf is 21.0 MB, too large to send to a customer: documents up to 20 MB can be sent.",
    ],
  ])("%s: the limit in words, no setting name", (name, mimetype, size, said) => {
    const refuse = () =>
      checkMedia({ id: "F1", name, mimetype, size, url: "https://files.slack.com/x" }, config);
    expect(refuse).toThrow(said);
    expect(refuse).not.toThrow(/MEDIA_MAX|_MB\b/);
  });
});
