export * from './config/config-file.js';
