// Values the reliability global setup hands to the test files (vitest `provide` / `inject`).
import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run's result files go (set by test/reliability/report-setup.ts). */
    reliabilityResultsDir: string;
  }
}
