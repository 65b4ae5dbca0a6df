import type { ResultStore } from '../result-store/result-store.js';
import type { ServerMetrics } from './server-metrics.js';

/** The store, with each write counted in the metrics (uploads by outcome, bytes written whole). */
export function meteredResultStore(store: ResultStore, metrics: ServerMetrics): ResultStore {
  return {
    get kind() {
      return store.kind;
    },
    async put(key, data) {
      try {
        const bytes = await store.put(key, data);
        metrics.uploads.inc({ outcome: 'stored' });
        metrics.uploadedBytes.inc(bytes);
        return bytes;
      } catch (error) {
        metrics.uploads.inc({ outcome: 'failed' });
        throw error;
      }
    },
    get: (key) => store.get(key),
    delete: (key) => store.delete(key),
    deleteRunOutputs: (resultId, keep) => store.deleteRunOutputs(resultId, keep),
    prepare: () => store.prepare(),
    list: () => store.list(),
    remove: (entry) => store.remove(entry),
  };
}
