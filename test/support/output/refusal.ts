// The one line a UsageError says, for tests of what a refusal tells (bad input is one line).
import { UsageError } from '../../../src/core/errors.js';

export function usageRefusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a UsageError');
}
