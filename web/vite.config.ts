import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The web app is built into dist/web and served by `chunkpad serve`; nothing is fetched at run time.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: "../dist/web", emptyOutDir: true, sourcemap: false, target: "es2022" },
  logLevel: "warn",
});
