import { describe, expect, it } from "vitest";
import { withContextPrefix } from "./context-prefix.js";

describe("withContextPrefix", () => {
  it("puts the document title and section above the chunk", () => {
    expect(withContextPrefix({ title: "Grant rules", section: "Deadlines" }, "Apply by March.")).toBe("Document: Grant rules\nSection: Deadlines\n\nApply by March.");
  });

  it("leaves out the Section line when there is no section", () => {
    expect(withContextPrefix({ title: "Notes" }, "Body")).toBe("Document: Notes\n\nBody");
    expect(withContextPrefix({ title: "Notes", section: "  " }, "Body")).toBe("Document: Notes\n\nBody");
  });

  it("keeps a multi-line title on its own line", () => {
    expect(withContextPrefix({ title: "A\nB", section: "C\n D" }, "x")).toBe("Document: A B\nSection: C D\n\nx");
  });
});
