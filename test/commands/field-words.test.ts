// Issue 22 §4: the API's refusals name the field as the person typed it, not
// the API's member path, whichever command or form they reach.
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/api/errors.ts";
import { problemsOf } from "../../src/api/http.ts";
import { apiErrorReply } from "../../src/commands/errors.ts";

const refused = (...messages: string[]) =>
  apiErrorReply(new ValidationError("refused", problemsOf({ statusCode: 400, message: messages })));

describe("the API's refusals in the words a person typed (issue 22 §4)", () => {
  it("a placeholder left out names the template and the option to add", () => {
    const r = refused("template.parameters.first_name is required by template order_update");
    expect(r.text).toContain("Template order_update needs `first_name=…`");
    expect(r.text).not.toContain("template.parameters");
  });

  it("a record that does not exist is named as one: There is no contact #999", () => {
    expect(refused("contactId 999 does not name a contact").text).toContain("There is no contact #999");
    expect(refused("contactIds.1 999999 does not name a contact").text).toContain(
      "There is no contact #999999",
    );
    expect(refused("chatUserId 5 does not name a chat user").text).toContain("There is no chat user #5");
    expect(refused("contactId 999 does not name a contact").text).not.toContain("contactId");
  });

  it("a custom field is named by its key", () => {
    const r = refused("custom_fields.points must be a number");
    expect(r.text).toContain("points* must be a number");
    expect(r.text).not.toContain("custom_fields");
  });

  it("several problems stay a list", () => {
    const r = refused("custom_fields.points must be a number", "groupIds.0 9999 does not name a group");
    expect(r.text).toContain("• *points* must be a number");
    expect(r.text).toContain("• There is no group #9999");
  });
});
