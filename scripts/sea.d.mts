// Types of scripts/sea.mjs for the test that builds the single executable (test/build/single-executable.test.ts).
export const SEA_EXECUTABLE: string;
export function buildSea(options: {
  outdir: string;
  root?: string;
  log?: (line: string) => void;
}): Promise<{ executable: string; seconds: number }>;
