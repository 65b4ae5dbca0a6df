export { meteredRuntime } from './metered-runtime.js';
export { NodeMetrics } from './node-metrics.js';
export { proxyObserver } from './proxy-observer.js';
export { serveNodeMetrics } from './serve-node-metrics.js';
