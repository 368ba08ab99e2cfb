// A tool call's answer, in-process or over MCP: its JSON, and whether it is a refusal of a shape; and the sides the
// calls name.
import { expect } from 'vitest';
import { MARKET } from '../support/simulator.js';

export const BUY = { market: MARKET, side: 'buy' };
export const SELL = { market: MARKET, side: 'sell' };

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
