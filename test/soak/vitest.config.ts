import { defineConfig } from 'vitest/config';
import suite from '../../vitest.config.js';

// The soaks wait in real time for as long as their runners ask (scripts/soak-*.mjs), so they run
// outside `npm test`, each test with its own bound, on the suite's set-up (the built dist/).
export default defineConfig({
  test: {
    ...suite.test,
    include: ['test/soak/*.soak.ts'],
    globalSetup: ['test/support/global-setup.ts'],
  },
});
