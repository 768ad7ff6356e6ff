import { defineConfig } from 'astro/config';
import react from '@astrojs/react';
import tailwindcss from '@tailwindcss/vite';
import { BUILD_ORIGIN } from './site/build-origin.ts';

// Fully static site: marketing pages are prerendered HTML, signed-in screens are
// prerendered shells hosting React islands that call the API on the same origin.
export default defineConfig({
  // Absolute links carry a stand-in origin; the server writes the running one in (api/site.ts).
  site: BUILD_ORIGIN,
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
