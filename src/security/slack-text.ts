// The one rule for text that goes to a Slack channel (the keeper's alerts to --alert-url and
// --alert-cmd, whose `text` Slack and Slack-compatible chats render). Slack reads `<…>` in a
// message as a control sequence: `<!channel>` and `<!here>` ping everyone, `<https://x|label>` is a
// link shown as its label only, `<@U123>` mentions a person. Slack's own rule for text is to write
// the three characters that start and end those as entities (`&` → `&amp;`, `<` → `&lt;`,
// `>` → `&gt;`), which Slack shows as the characters themselves: a server's error message can then
// say `<!channel>` but never ping anyone or hide a link behind a label. Before that, the terminal's
// rules (safe-text.ts): a control, bidi or zero-width character is written as a visible escape, so
// the chat shows what the text is and a hook that prints it to a terminal is not driven by it.
import { safeText } from './safe-text.js';

const SLACK_CONTROL = /[&<>]/;
const SLACK_CONTROL_ALL = /[&<>]/g;
const ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** safeText, then Slack's three escapes: the string as a Slack message shows it, and nothing more. */
export function slackText(value: string): string {
  const safe = safeText(value);
  return SLACK_CONTROL.test(safe) ? safe.replace(SLACK_CONTROL_ALL, (char) => ENTITY[char]!) : safe;
}
