/** Builds a stdio MCP child's environment: the parent's minus secrets, plus the server's own `env` (shared rule). */
export { isSecretVariable, scrubbedEnvironment } from '../../shared/environment.js';
