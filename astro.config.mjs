import { defineConfig } from 'astro/config';
import react from '@astrojs/react';
import tailwindcss from '@tailwindcss/vite';

// Fully static site: marketing pages are prerendered HTML, signed-in screens are
// prerendered shells hosting React islands that call the API on the same origin.
export default defineConfig({
  site: process.env.PUBLIC_URL ?? 'http://localhost:3000',
  srcDir: './site/src',
  publicDir: './site/public',
  outDir: './site/dist',
  cacheDir: './node_modules/.astro',
  trailingSlash: 'never',
  build: { format: 'file' },
  integrations: [react()],
  vite: { plugins: [tailwindcss()] },
  devToolbar: { enabled: false },
  telemetry: false,
});
