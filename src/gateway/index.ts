/** Public surface of the channel gateway: `createGateway` and its types. */
export { createGateway, type Gateway, type GatewayDeps, type GatewayStatus } from './gateway.js';
export { DEFAULT_EDIT_INTERVAL_MS } from './stream-renderer.js';
export type { ElicitationAnswer, ElicitationHandler, ElicitationRequest, ElicitationSource } from './elicitations.js';
