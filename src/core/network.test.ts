import { describe, expect, it } from "vitest";
import { describeNetworkFailure, detectNetworkFailure } from "./network.js";

const nodeError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code });

describe("network failures", () => {
  it("finds the code deep in an SDK error's cause chain", () => {
    const wrapped = new Error("Connection error.", { cause: new TypeError("fetch failed", { cause: nodeError("ECONNREFUSED") }) });
    expect(detectNetworkFailure(wrapped)).toBe("refused");
    expect(describeNetworkFailure(wrapped)).toBe("the connection was refused (nothing is listening there)");
  });

  it("skips codes that are not network codes on the way down", () => {
    const wrapped = Object.assign(new Error("outer"), { code: "ERR_SOMETHING", cause: nodeError("EAI_AGAIN") });
    expect(detectNetworkFailure(wrapped)).toBe("dns");
    expect(describeNetworkFailure(wrapped)).toContain("DNS is not answering");
  });

  it("says nothing was a network failure for a plain error, and keeps its text", () => {
    expect(detectNetworkFailure(new Error("plain"))).toBeUndefined();
    expect(describeNetworkFailure(new Error("plain"))).toBe("plain");
    expect(describeNetworkFailure(nodeError("EWEIRD"))).toBe("the request failed (EWEIRD)");
  });

  it("reads an SDK's timeout error by its name", () => {
    const timeout = Object.assign(new Error("Request timed out."), { name: "APIConnectionTimeoutError" });
    expect(detectNetworkFailure(timeout)).toBe("timeout");
  });
});
