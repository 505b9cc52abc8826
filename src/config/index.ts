/** Public surface of the configuration module. */
export { loadConfig, processEnvironment, type Config, type Environment, type LoadConfigOptions } from './load-config.js';
export { configSchema, type ModelConfig, type McpServerConfig, type RawConfig } from './config-schema.js';
