// PLACEHOLDER: replaced once the sandbox exists.
import type { DemoHandle } from '../context.js';

export async function startDemo(_configDir: string): Promise<DemoHandle> {
  throw new Error('demo not built yet');
}
