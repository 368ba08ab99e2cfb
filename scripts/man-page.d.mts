// Types of scripts/man-page.mjs for the tests that import it.
export function renderManPage(input: {
  commands: readonly unknown[];
  globalOptions: readonly unknown[];
  groups: readonly { id: string; heading: string }[];
  exitCodes: readonly { code: number; name: string; meaning: string }[];
  version: string;
}): string;
