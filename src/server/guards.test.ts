import os from "node:os";
import { describe, expect, it } from "vitest";
import { serverHostNames, uploadName } from "./guards.js";

describe("uploadName", () => {
  it("accepts plain names, NFC-normalized", () => {
    expect(uploadName("notes on herons.md")).toBe("notes on herons.md");
    expect(uploadName("cafe\u0301.md")).toBe("café.md");
    expect(uploadName("报告.pdf")).toBe("报告.pdf");
  });

  it("refuses what no file system keeps, with the reason", () => {
    const reason = (name: string | undefined) => {
      try {
        uploadName(name);
        return "accepted";
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(reason(undefined)).toMatch(/empty/);
    expect(reason("a\u0000b.md")).toMatch(/control character/);
    expect(reason("bell\u0007.md")).toMatch(/control character/);
    expect(reason("bad\uFFFD.md")).toMatch(/not valid UTF-8/);
    expect(reason("..")).toMatch(/plain name/);
    expect(reason("a\\b.md")).toMatch(/one of/);
    expect(reason("trailing.")).toMatch(/ends with a dot/);
    expect(reason(" lead.md")).toMatch(/starts or ends with a space/);
    expect(reason(`${"x".repeat(253)}.md`)).toMatch(/longer than 255 bytes/);
  });
});

describe("serverHostNames", () => {
  it("is loopback only unless remote", () => {
    expect(serverHostNames("127.0.0.1", false)).toEqual(["127.0.0.1", "localhost", "[::1]"]);
    expect(serverHostNames("0.0.0.0", false)).toEqual(["127.0.0.1", "localhost", "[::1]"]);
  });

  it("adds the bound address, and for a wildcard every address of this machine and its name", () => {
    expect(serverHostNames("192.0.2.7", true)).toContain("192.0.2.7");
    expect(serverHostNames("fd00::7", true)).toContain("[fd00::7]");
    const all = serverHostNames("0.0.0.0", true);
    const addresses = Object.values(os.networkInterfaces()).flat().filter((address) => address !== undefined && !address.address.toLowerCase().startsWith("fe80:"));
    for (const address of addresses) expect(all).toContain(address?.family === "IPv6" ? `[${address.address.toLowerCase()}]` : address?.address);
    expect(all).toContain(os.hostname().toLowerCase());
  });
});
