import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    bail: 1,
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["src/**/*.test.ts"] } },
      { extends: true, test: { name: "integration", include: ["test/**/*.test.ts"] } },
    ],
  },
});
