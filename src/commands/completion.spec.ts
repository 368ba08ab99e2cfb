// The declaration of `hedge completion`: its arguments, options, tier and examples (the
// manifest collects it; completion.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const SHELL_VALUES = ['bash', 'zsh', 'fish'] as const;

export const COMPLETION = declare({
  name: 'completion',
  summary: 'Print the shell completion script (bash, zsh or fish)',
  description: 'Print the shell completion script for bash, zsh or fish',
  group: 'setup',
  tier: 'local',
  args: [{ name: 'shell', required: true, description: 'bash, zsh or fish', values: SHELL_VALUES }],
  examples: [
    'hedge completion bash > ~/.local/share/bash-completion/completions/hedge',
    'hedge completion zsh > "${fpath[1]}/_hedge"',
    'hedge completion fish > ~/.config/fish/completions/hedge.fish',
  ],
});
