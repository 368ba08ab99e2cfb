import { describe, expect, it } from 'vitest';
import { Lifetime } from '../../src/runtime/lifetime.js';

class Services extends Lifetime {
  builds = 0;
  constructor(fake?: string) {
    super();
    this.given('thing', fake);
  }
  thing(): Promise<string> {
    return this.once('thing', async () => `built ${++this.builds}`);
  }
}

describe('Lifetime', () => {
  it('builds a service once however often and however concurrently it is asked for', async () => {
    const services = new Services();
    const all = await Promise.all([services.thing(), services.thing(), services.thing()]);
    expect(all).toEqual(['built 1', 'built 1', 'built 1']);
    expect(services.builds).toBe(1);
  });

  it('serves a given service instead of building one', async () => {
    const services = new Services('fake');
    expect(await services.thing()).toBe('fake');
    expect(services.builds).toBe(0);
  });

  it('closes last opened first, and a failing close does not stop the others', async () => {
    const services = new Services();
    const closed: string[] = [];
    services.onDispose(() => void closed.push('first'));
    services.onDispose(() => {
      throw new Error('cannot close');
    });
    services.onDispose(async () => void closed.push('third'));
    await expect(services.dispose()).resolves.toBeUndefined();
    expect(closed).toEqual(['third', 'first']);
    await services.dispose();
    expect(closed).toEqual(['third', 'first']);
  });
});
