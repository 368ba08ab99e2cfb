// A command's lifetime: each service is built once, on first use, and what was opened is closed
// when the command ends, last opened first. runtime/context.ts decides which services there are.

export class Lifetime {
  private readonly built = new Map<string, Promise<unknown>>();
  private readonly disposers: Array<() => Promise<void> | void> = [];

  /** A service given ready-made (a test's fake): `once` returns it instead of building one. */
  protected given(name: string, service: unknown): void {
    if (service) this.built.set(name, Promise.resolve(service));
  }

  /** A service built once, on first use: `build` runs at most once per lifetime. */
  protected once<T>(name: string, build: () => Promise<T>): Promise<T> {
    let service = this.built.get(name) as Promise<T> | undefined;
    if (!service) {
      service = build();
      this.built.set(name, service);
    }
    return service;
  }

  onDispose(dispose: () => Promise<void> | void): void {
    this.disposers.push(dispose);
  }

  async dispose(): Promise<void> {
    for (const dispose of this.disposers.reverse()) {
      try {
        await dispose();
      } catch {
        // Cleanup must never mask the command's own outcome.
      }
    }
    this.disposers.length = 0;
  }
}
