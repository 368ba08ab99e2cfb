// How a roll's outcome reads (flows/roll.ts returns it): its notes on stderr, the one-line result,
// then the card, TSV record or JSON document of both legs. The exit code follows from it: 0, or the
// failure's own when the new hedge failed on-chain (thrown after the card is shown).
import type { Output } from '../terminal/output.js';
import type { RollOutcome } from './roll-outcome-types.js';
import { renderRoll, renderRollDryRun } from './roll-view.js';
import { safeText } from '../../core/security/safe-text.js';
import { formatDays, formatUtcMinutes } from '../terminal/format.js';

export function renderRollOutcome(output: Output, outcome: RollOutcome, hedgeCommand?: (...argv: string[]) => string) {
  for (const note of outcome.notes) {
    if (note.level === 'warn') output.warn(note.text);
    else output.note(output.chalk.yellow(note.text));
  }
  if (outcome.kind === 'dry-run') {
    renderRollDryRun(output, outcome.legs);
    return 0;
  }
  if (outcome.failure) {
    renderRoll(output, outcome.view);
    throw outcome.failure;
  }
  if (!output.isJson) {
    const newId = outcome.opened.hedgeId ? safeText(outcome.opened.hedgeId) : 'the new hedge';
    if (outcome.opened.landed) {
      const until = outcome.opened.maturityAt ? ` until ${formatUtcMinutes(outcome.opened.maturityAt)} UTC` : '';
      output.success(
        `Rolled: the ${outcome.side} side of ${safeText(outcome.market)} is covered by ${newId} (${formatDays(outcome.tenorDays)})${until}.`,
      );
    } else if (outcome.opened.hedgeId) {
      const follow = hedgeCommand
        ? hedgeCommand('hedges', outcome.opened.hedgeId, '--wait')
        : `hedge hedges ${outcome.opened.hedgeId} --wait`;
      output.note(`Submitted ${newId}; follow it with: ${safeText(follow)}`);
    }
  }
  renderRoll(output, outcome.view);
  return 0;
}
