import { describe, expect, it } from "vitest";
import { resolvePaths } from "./paths.js";

describe("state locations", () => {
  it("moves everything under CHUNKPAD_HOME", () => {
    const paths = resolvePaths({ env: { CHUNKPAD_HOME: "/tmp/cp" }, platform: "linux", homedir: "/home/ada" });
    for (const value of Object.values(paths)) expect(value.startsWith("/tmp/cp/")).toBe(true);
    expect(paths.databasePath).toBe("/tmp/cp/data/chunkpad.db");
    expect(paths.modelsDir).toBe("/tmp/cp/cache/models");
  });

  it("follows XDG on Linux, including overrides", () => {
    const plain = resolvePaths({ env: {}, platform: "linux", homedir: "/home/ada" });
    expect(plain.configPath).toBe("/home/ada/.config/chunkpad/config.json");
    expect(plain.databasePath).toBe("/home/ada/.local/share/chunkpad/chunkpad.db");
    expect(plain.modelsDir).toBe("/home/ada/.cache/chunkpad/models");
    const moved = resolvePaths({ env: { XDG_CACHE_HOME: "/fast/cache" }, platform: "linux", homedir: "/home/ada" });
    expect(moved.modelsDir).toBe("/fast/cache/chunkpad/models");
  });

  it("uses Application Support and Caches on macOS", () => {
    const paths = resolvePaths({ env: {}, platform: "darwin", homedir: "/Users/ada" });
    expect(paths.databasePath).toBe("/Users/ada/Library/Application Support/Chunkpad/chunkpad.db");
    expect(paths.modelsDir).toBe("/Users/ada/Library/Caches/Chunkpad/models");
  });
});
