// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const ROOMS = ["core", "ingest", "chunking", "chunkfiles", "embedding", "hub", "store", "search", "rag", "llm", "app"];

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "web/dist/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    // The core returns data; only the faces print or exit.
    files: ["src/**/*.ts"],
    ignores: ["src/cli/**", "src/server/**", "src/mcp/**", "src/**/*.test.ts"],
    rules: {
      "no-console": "error",
      "no-restricted-properties": ["error", { object: "process", property: "exit", message: "Only faces exit; return or throw instead." }],
    },
  },
  {
    // Faces import only the public API (src/index.ts), never a room directly.
    files: ["src/cli/**/*.ts", "src/server/**/*.ts", "src/mcp/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{
          group: ROOMS.flatMap((room) => [`../${room}/*`, `../../${room}/*`, `../${room}`, `../../${room}`]),
          message: "Faces import only the public API: import from \"../index.js\".",
        }],
      }],
    },
  },
);
