// The one rule for text that goes to a Slack channel (the keeper's alerts to --alert-url and --alert-cmd, whose `text` Slack and Slack-compatible chats render).
import { safeText } from './safe-text.js';

const SLACK_CONTROL = /[&<>]/;
const SLACK_CONTROL_ALL = /[&<>]/g;
const ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** safeText, then Slack's three escapes: the string as a Slack message shows it, and nothing more. */
export function slackText(value: string) {
  const safe = safeText(value);
  return SLACK_CONTROL.test(safe) ? safe.replace(SLACK_CONTROL_ALL, (char) => ENTITY[char]) : safe;
}
