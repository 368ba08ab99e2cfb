// A tool call's answer, in-process or over MCP: its JSON, and whether it is a refusal of a shape; the sides the calls
// name, and the journal they leave on the simulator's machine.
import { openJournal } from '../../src/platform/journal/index.js';
import { MARKET, type Simulator } from '../support/simulator.js';

export const BUY = { market: MARKET, side: 'buy' };
export const SELL = { market: MARKET, side: 'sell' };

/** The entries of the simulator's journal (its config dir's), newest first. */
export const journal = (simulator: Simulator) => openJournal({ dir: simulator.configDir }).list();

interface Answer {
  isError?: boolean;
  content: Array<{ text: string }>;
}

export const json = (answer: Answer): any => JSON.parse(answer.content[0].text);
export const everything = (answer: Answer) => answer.content.map((part) => part.text).join('\n');

/** The answer is an error whose JSON matches `shape`. */
export function expectRefused(answer: Answer, shape: object): void {
  expect(answer.isError, everything(answer)).toBe(true);
  expect(json(answer)).toMatchObject(shape);
}

/** The answer is no error. */
export const expectDone = (answer: Answer) => expect(answer.isError, everything(answer)).toBeFalsy();
