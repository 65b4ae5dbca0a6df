import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { RecordingEventBus } from '@federa/testing';
import type { AppContext } from '../../context.js';
import { announceTask } from './create.js';

describe('announceTask (step 11 of POST /task)', () => {
  const setup = () => {
    const events = new RecordingEventBus();
    const response = new EventEmitter();
    announceTask({ events } as unknown as AppContext, response, 7, 42, [3, 5, 3]);
    return { events, response };
  };

  // The users watching the collaboration, and the rooms of the organizations with a run (each once).
  const audience = [
    'federa:watch:collaboration_7',
    'collaboration_7_organization_3',
    'collaboration_7_organization_5',
  ];

  it('sends new_task to its audience only once the answer is written, and once', () => {
    const { events, response } = setup();
    expect(events.emitted).toEqual([]);
    response.emit('finish');
    expect(events.emitted).toEqual(audience.map((room) => ({ room, event: 'new_task', payload: 42 })));
    response.emit('close');
    expect(events.emitted).toHaveLength(3);
  });

  it('still sends it when the connection closed before the answer was written', () => {
    const { events, response } = setup();
    response.emit('close');
    expect(events.emitted).toEqual(audience.map((room) => ({ room, event: 'new_task', payload: 42 })));
  });
});
