/** Public surface of the configuration module. */
export { processEnvironment } from '../shared/environment.js';
export { loadConfig, type Config, type Environment, type LoadConfigOptions } from './load-config.js';
export { configSchema, type ModelConfig, type McpServerConfig, type RawConfig } from './config-schema.js';
