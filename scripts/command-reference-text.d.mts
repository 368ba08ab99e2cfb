// Types of scripts/command-reference-text.mjs for the test that imports it.
export function commandReference(input: {
  commands: readonly unknown[];
  globalOptions: readonly unknown[];
  groups: readonly { id: string; heading: string }[];
}): string;
