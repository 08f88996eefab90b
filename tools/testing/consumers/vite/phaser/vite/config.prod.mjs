// The production config of Phaser's own Vite template (phaserjs/template-vite-ts,
// vite/config.prod.mjs): relative asset URLs and Phaser in a chunk of its own. The template also
// minifies with terser in two passes; Vite's default minifier stands in for it here, which keeps
// the test's build time down and changes nothing about how the packages resolve.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  logLevel: 'warning',
  build: {
    rollupOptions: {
      output: {
        manualChunks: {
          phaser: ['phaser'],
        },
      },
    },
  },
});
