/** The SDK's OAuthClientProvider for one user of one server: tokens in the vault, `state` bound in AuthorizationStates. */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthVault } from './mcp-oauth-vault.js';
import type { AuthorizationBinding, AuthorizationStates } from './mcp-oauth-states.js';
import type { McpOAuthSettings } from './mcp-server-spec.js';

export interface UserOAuthProviderOptions {
  binding: AuthorizationBinding;
  settings: McpOAuthSettings;
  vault: McpOAuthVault;
  states: AuthorizationStates;
  /** Exactly `<gateway.public_url>/v1/oauth/callback`. */
  redirectUrl: string;
  /** Set when finishing an authorization (the callback): the verifier saved with its state. */
  codeVerifier?: string;
}

export class UserOAuthProvider implements OAuthClientProvider {
  /** Where the user must go, set when the SDK starts a new authorization. */
  authorizationUrl: URL | undefined;
  /** The `state` of the authorization this provider started (set with `authorizationUrl`). */
  issuedState: string | undefined;

  constructor(private readonly options: UserOAuthProviderOptions) {}

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { settings } = this.options;
    return {
      client_name: 'Sandpiper',
      redirect_uris: [this.options.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: settings.clientSecret === undefined ? 'none' : 'client_secret_post',
      ...(settings.scopes.length > 0 ? { scope: settings.scopes.join(' ') } : {}),
    };
  }

  async state(): Promise<string> {
    this.issuedState = await this.options.states.issue(this.options.binding);
    return this.issuedState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { settings } = this.options;
    if (settings.clientId !== undefined) {
      return {
        client_id: settings.clientId,
        ...(settings.clientSecret !== undefined ? { client_secret: settings.clientSecret } : {}),
      };
    }
    return (await this.options.vault.client(this.options.binding.server)) as OAuthClientInformationMixed | undefined;
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    if (this.options.settings.clientId !== undefined) return;
    await this.options.vault.saveClient(this.options.binding.server, information);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.options.vault.tokens(this.options.binding.server, this.options.binding.userId)) as
      OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.options.vault.saveTokens(this.options.binding.server, this.options.binding.userId, tokens);
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    if (this.issuedState !== undefined) await this.options.states.attachVerifier(this.issuedState, codeVerifier);
  }

  codeVerifier(): string {
    if (this.options.codeVerifier === undefined) throw new Error('no PKCE verifier for this authorization');
    return this.options.codeVerifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'tokens')
      await this.options.vault.revoke(this.options.binding.server, this.options.binding.userId);
  }
}
