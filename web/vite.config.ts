import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The web app is built into dist/web and served by `chunkpad serve`; nothing is fetched at run time.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // pdf.js (loaded only for a PDF page) is one large chunk by nature.
  build: { outDir: "../dist/web", emptyOutDir: true, sourcemap: false, target: "es2022", chunkSizeWarningLimit: 1500 },
  logLevel: "warn",
});
