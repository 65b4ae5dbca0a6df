import type { EventBus } from '@federa/server';

export interface RecordedEvent {
  room: string;
  event: string;
  payload: unknown;
}

/** An EventBus that records what the routes emit, for tests (`startTestApp({ events })`). */
export class RecordingEventBus implements EventBus {
  readonly emitted: RecordedEvent[] = [];

  emit(room: string, event: string, ...args: unknown[]): void {
    this.emitted.push({ room, event, payload: args[0] });
  }

  /** The recorded events named `event`. */
  named(event: string): RecordedEvent[] {
    return this.emitted.filter((e) => e.event === event);
  }

  clear(): void {
    this.emitted.length = 0;
  }
}
