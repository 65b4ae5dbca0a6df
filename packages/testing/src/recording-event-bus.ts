import type { EventBus } from '@federa/server';

export interface RecordedEvent {
  room: string;
  event: string;
  payload: unknown;
}

/** An EventBus that records what the routes emit, for tests (`startTestApp({ events })`). */
export class RecordingEventBus implements EventBus {
  readonly emitted: RecordedEvent[] = [];

  /** Records an event to several rooms once per room. */
  emit(room: string | readonly string[], event: string, ...args: unknown[]): void {
    for (const r of typeof room === 'string' ? [room] : room)
      this.emitted.push({ room: r, event, payload: args[0] });
  }

  /** The recorded events named `event`. */
  named(event: string): RecordedEvent[] {
    return this.emitted.filter((e) => e.event === event);
  }

  clear(): void {
    this.emitted.length = 0;
  }
}
