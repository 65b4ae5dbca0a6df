import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { RecordingEventBus } from '@federa/testing';
import type { AppContext } from '../../context.js';
import { announceTask } from './create.js';

describe('announceTask (step 11 of POST /task)', () => {
  const setup = () => {
    const events = new RecordingEventBus();
    const response = new EventEmitter();
    announceTask({ events } as unknown as AppContext, response, 7, 42);
    return { events, response };
  };

  it('sends new_task to the collaboration only once the answer is written, and once', () => {
    const { events, response } = setup();
    expect(events.emitted).toEqual([]);
    response.emit('finish');
    expect(events.emitted).toEqual([{ room: 'collaboration_7', event: 'new_task', payload: 42 }]);
    response.emit('close');
    expect(events.emitted).toHaveLength(1);
  });

  it('still sends it when the connection closed before the answer was written', () => {
    const { events, response } = setup();
    response.emit('close');
    expect(events.emitted).toEqual([{ room: 'collaboration_7', event: 'new_task', payload: 42 }]);
  });
});
