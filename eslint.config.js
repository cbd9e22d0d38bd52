// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const ROOMS = ["core", "ingest", "chunking", "chunkfiles", "embedding", "hub", "store", "search", "rag", "llm", "app"];
const FACES = ["cli", "server", "mcp"];

/**
 * Which rooms each room may import (DESIGN.md, "Code layout"): arrows point one way, from the
 * faces to app/ to the domain rooms to core/. app/ may use every domain room; a domain room
 * never imports app/ or a face.
 */
const MAY_IMPORT = {
  core: [],
  chunking: ["core"],
  chunkfiles: ["core", "chunking"],
  ingest: ["core", "chunking", "chunkfiles"],
  hub: ["core"],
  embedding: ["core", "hub"],
  store: ["core"],
  search: ["core"],
  llm: ["core", "hub"],
  rag: ["core", "chunking", "search", "llm"],
  app: ROOMS.filter((room) => room !== "app"),
};

const roomRules = Object.entries(MAY_IMPORT).map(([room, allowed]) => {
  const forbidden = [...ROOMS, ...FACES].filter((other) => other !== room && !allowed.includes(other));
  return {
    files: [`src/${room}/**/*.ts`],
    // Tests may build their input with another room's code.
    ignores: ["src/**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [
          {
            group: forbidden.flatMap((other) => [`**/${other}/*`, `../${other}`, `../../${other}`]),
            message: `${room}/ may import only ${allowed.length ? allowed.join(", ") : "no other room"} (imports point one way: faces → app → domain rooms → core).`,
          },
          ...(room === "store" ? [] : [{
            group: ["**/store/*", "!**/store/index.js"],
            message: "Use the store through its contract: import from store/index.js, never its implementation.",
          }]),
        ],
      }],
    },
  };
});

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "web/dist/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The store and most of the core are async: a promise nobody awaits is a write that may not
    // have happened, or an error nobody sees. These rules need type information.
    files: ["src/**/*.ts", "test/**/*.ts", "bench/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/await-thenable": "error",
    },
  },
  {
    // The web app, type-aware through web/tsconfig.json: a promise nobody awaits is an error nobody sees.
    files: ["web/src/**/*.{ts,tsx}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      // Requests go through api/client.ts, which turns every failure into an error the view shows.
      "no-restricted-globals": ["error", { name: "fetch", message: "Use web/src/api/client.ts (get, post, put, remove), or a hook in web/src/hooks." }],
    },
  },
  {
    files: ["web/src/api/client.ts"],
    rules: { "no-restricted-globals": "off" },
  },
  {
    // The design system knows nothing of the server (STYLE.md, "The web app").
    files: ["web/src/components/**/*.{ts,tsx}"],
    rules: { "no-restricted-imports": ["error", { patterns: [{ group: ["../api/*", "../hooks/*"], message: "A component knows nothing of the API: take data and callbacks as props." }] }] },
  },
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
  ...roomRules,
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
  {
    // The public API re-exports the store's contract, never its implementation.
    files: ["src/index.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["./store/*", "!./store/index.js"], message: "Export store types from ./store/index.js, never its implementation." }] }],
    },
  },
  {
    // A command is one verb: what two commands share lives in cli/shared/, never in another command.
    files: ["src/cli/commands/**/*.ts"],
    ignores: ["src/**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [
          { group: ["./*"], message: "Commands do not import each other: move what they share to cli/shared/." },
          { group: ROOMS.flatMap((room) => [`../../${room}/*`, `../../${room}`]), message: "Faces import only the public API: import from \"../../index.js\"." },
        ],
      }],
    },
  },
);
