/** JWT verification and minting for the notify endpoint (HS256, pinned audience, scopes claim). */
import { webcrypto } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { HttpError } from './http-errors.js';

const SCOPE_ORDER = ['read', 'write', 'approve', 'service'] as const;

export interface NotifyPrincipal {
  subject: string;
  scopes: ReadonlySet<string>;
}

export interface JwtSettings {
  secret: string;
  audience: string;
}

/** Expands a comma-separated scopes claim hierarchically: read ⊂ write ⊂ approve ⊂ service; unknown scopes drop. */
export function expandScopes(claim: string): Set<string> {
  const granted = new Set<string>();
  for (const raw of claim.split(',')) {
    const index = (SCOPE_ORDER as readonly string[]).indexOf(raw.trim());
    for (let level = 0; level <= index; level += 1) granted.add(SCOPE_ORDER[level] as string);
  }
  return granted;
}

/**
 * The HMAC key of each settings object as a WebCrypto key, imported once: jose turns any other key form (bytes,
 * KeyObject) into a CryptoKey on every call, which cost more than the verification itself.
 */
const keys = new WeakMap<JwtSettings, { secret: string; key: Promise<webcrypto.CryptoKey> }>();

function verificationKey(settings: JwtSettings): Promise<webcrypto.CryptoKey> {
  const cached = keys.get(settings);
  if (cached !== undefined && cached.secret === settings.secret) return cached.key;
  const key = webcrypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(settings.secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  keys.set(settings, { secret: settings.secret, key });
  return key;
}

/**
 * Verifies `Authorization: Bearer <jwt>` for a request needing `requiredScope`. Throws HttpError 401 for a
 * missing secret, header or bad token, 403 when the token lacks the scope (or has no `scopes` claim).
 */
export async function verifyBearer(
  header: string | undefined,
  settings: JwtSettings,
  requiredScope = 'write',
): Promise<NotifyPrincipal> {
  if (!settings.secret) throw new HttpError(401, 'authentication not configured');
  const match = /^Bearer ([^\s]+)$/.exec(header ?? '');
  const token = match?.[1];
  if (!token || !token.includes('.')) throw new HttpError(401, 'Unauthorized');
  let payload: Record<string, unknown>;
  try {
    const verified = await jwtVerify(token, await verificationKey(settings), {
      algorithms: ['HS256'],
      audience: settings.audience,
      clockTolerance: 30,
      requiredClaims: ['exp'],
    });
    payload = verified.payload;
  } catch {
    // The reason (expired, bad signature, wrong audience) is deliberately not echoed to the caller.
    throw new HttpError(401, 'Unauthorized');
  }
  const claim = payload['scopes'];
  const scopes = typeof claim === 'string' ? expandScopes(claim) : new Set<string>();
  if (!scopes.has(requiredScope)) throw new HttpError(403, 'insufficient scope');
  return { subject: typeof payload['sub'] === 'string' ? payload['sub'] : '', scopes };
}

/** Mints a token as a Turnstone server would for its channel gateway (used by `sandpiper notify`). */
export async function mintServiceToken(
  settings: JwtSettings,
  options: { subject?: string; scopes?: readonly string[]; ttlSeconds?: number } = {},
): Promise<string> {
  const scopes = [...(options.scopes ?? ['write'])].sort().join(',');
  return new SignJWT({ scopes, src: 'service' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.subject ?? 'system')
    .setIssuer('turnstone')
    .setAudience(settings.audience)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (options.ttlSeconds ?? 300))
    .sign(new TextEncoder().encode(settings.secret));
}

/**
 * A service token that is minted once and re-minted when less than 20 % of its lifetime is left (the
 * notify tool calls channel gateways with it). Resolves to undefined without a secret.
 */
export function createServiceTokenSource(
  settings: JwtSettings,
  options: { scopes?: readonly string[]; ttlSeconds?: number; now?: () => number } = {},
): () => Promise<string | undefined> {
  const ttlSeconds = options.ttlSeconds ?? 3600;
  const now = options.now ?? Date.now;
  let cached: { token: string; renewAtMs: number } | undefined;
  return async () => {
    if (!settings.secret) return undefined;
    if (cached === undefined || now() >= cached.renewAtMs) {
      const token = await mintServiceToken(settings, { scopes: options.scopes ?? ['write'], ttlSeconds });
      cached = { token, renewAtMs: now() + ttlSeconds * 800 };
    }
    return cached.token;
  };
}

/**
 * Admin tokens (ADR 0035): HS256 under `auth.admin_secret` (never the notify secret), header `typ: admin+jwt`,
 * audience `sandpiper-admin`, scopes `admin:read` (status and lists) or `admin:write` (changes; includes read).
 */
export const ADMIN_AUDIENCE = 'sandpiper-admin';
const ADMIN_TYP = 'admin+jwt';
export const ADMIN_SCOPES = ['admin:read', 'admin:write'] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

export interface AdminPrincipal {
  subject: string;
  scopes: ReadonlySet<AdminScope>;
}

/** `admin:write` includes `admin:read`; anything else (notify scopes such as `service`) grants nothing here. */
export function expandAdminScopes(claim: unknown): Set<AdminScope> {
  const listed = typeof claim === 'string' ? claim.split(',') : Array.isArray(claim) ? claim : [];
  const granted = new Set<AdminScope>();
  for (const raw of listed) {
    const scope = typeof raw === 'string' ? raw.trim() : '';
    if (scope === 'admin:write') granted.add('admin:write').add('admin:read');
    if (scope === 'admin:read') granted.add('admin:read');
  }
  return granted;
}

const adminSettings = new Map<string, JwtSettings>();
function adminSettingsOf(secret: string): JwtSettings {
  let settings = adminSettings.get(secret);
  if (settings === undefined) {
    settings = { secret, audience: ADMIN_AUDIENCE };
    adminSettings.clear();
    adminSettings.set(secret, settings);
  }
  return settings;
}

/**
 * Verifies an admin bearer token for `required`: 401 without a token, for a bad signature (a token signed with the
 * notify secret fails here, whatever its scopes), another audience or type; 403 when the scope is missing.
 */
export async function verifyAdminBearer(
  header: string | undefined,
  adminSecret: string,
  required: AdminScope,
): Promise<AdminPrincipal> {
  if (!adminSecret) throw new HttpError(404, 'the admin API is off: set auth.admin_secret (SANDPIPER_ADMIN_SECRET)');
  const token = /^Bearer ([^\s]+)$/.exec(header ?? '')?.[1];
  if (!token || !token.includes('.')) throw new HttpError(401, 'Unauthorized');
  const settings = adminSettingsOf(adminSecret);
  let payload: Record<string, unknown>;
  try {
    const verified = await jwtVerify(token, await verificationKey(settings), {
      algorithms: ['HS256'],
      audience: ADMIN_AUDIENCE,
      typ: ADMIN_TYP,
      clockTolerance: 30,
      requiredClaims: ['exp', 'sub'],
    });
    payload = verified.payload;
  } catch {
    throw new HttpError(401, 'Unauthorized');
  }
  const scopes = expandAdminScopes(payload['scopes']);
  if (!scopes.has(required)) throw new HttpError(403, `insufficient scope (needs ${required})`);
  return { subject: typeof payload['sub'] === 'string' ? payload['sub'] : '', scopes };
}

/** Mints a short-lived admin token (the CLI's calls to the admin API, `sandpiper token create --admin`). */
export async function mintAdminToken(
  adminSecret: string,
  options: { subject: string; scopes: readonly AdminScope[]; ttlSeconds?: number },
): Promise<string> {
  return new SignJWT({ scopes: [...options.scopes].sort().join(',') })
    .setProtectedHeader({ alg: 'HS256', typ: ADMIN_TYP })
    .setSubject(options.subject)
    .setIssuer('sandpiper')
    .setAudience(ADMIN_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (options.ttlSeconds ?? 300))
    .sign(new TextEncoder().encode(adminSecret));
}

const SESSION_TYP = 'console+jwt';
const SESSION_AUDIENCE = 'sandpiper-console';

export interface ConsoleSessionClaims {
  subject: string;
  scopes: ReadonlySet<AdminScope>;
  csrf: string;
  /** Expiry, seconds since the epoch. */
  expires: number;
}

/** A console session cookie (ADR 0047): HS256, type `console+jwt`, audience `sandpiper-console`, under `key`. */
export function mintConsoleSession(key: Uint8Array, claims: ConsoleSessionClaims): Promise<string> {
  return new SignJWT({ scopes: [...claims.scopes].sort().join(','), csrf: claims.csrf })
    .setProtectedHeader({ alg: 'HS256', typ: SESSION_TYP })
    .setSubject(claims.subject)
    .setAudience(SESSION_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(claims.expires)
    .sign(key);
}

/** The session's claims, or undefined for a cookie that is forged, expired, of another type or under another key. */
export async function verifyConsoleSession(key: Uint8Array, token: string): Promise<ConsoleSessionClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      audience: SESSION_AUDIENCE,
      typ: SESSION_TYP,
      requiredClaims: ['exp', 'sub'],
    });
    const csrf = payload['csrf'];
    if (typeof csrf !== 'string' || csrf.length < 16) return undefined;
    return {
      subject: payload.sub ?? '',
      scopes: expandAdminScopes(payload['scopes']),
      csrf,
      expires: payload.exp ?? 0,
    };
  } catch {
    return undefined;
  }
}

/** The context variable a console session's principal is kept in (set by the console's middleware, ADR 0047). */
export const CONSOLE_PRINCIPAL = 'consolePrincipal';

declare module 'hono' {
  interface ContextVariableMap {
    consolePrincipal?: AdminPrincipal;
  }
}
