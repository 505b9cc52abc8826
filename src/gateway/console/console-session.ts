/**
 * Console sessions (ADR 0047): an admin API token is exchanged once for a signed session cookie. The cookie is a JWT
 * (HS256, type `console+jwt`) under a key derived from `auth.admin_secret`, so a restart keeps sessions and rotating the
 * secret ends them all; it carries who signed in, the token's admin scopes, its expiry and the session's CSRF token.
 * Every state-changing request must echo that CSRF token in a header, which a page on another site cannot read.
 */
import { hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import {
  mintConsoleSession,
  verifyAdminBearer,
  verifyConsoleSession,
  type ConsoleSessionClaims,
} from '../http/auth.js';
import { HttpError } from '../http/http-errors.js';

export const SESSION_COOKIE = 'sandpiper_console';
export const CSRF_HEADER = 'x-csrf-token';
export type ConsoleSession = ConsoleSessionClaims;

const keys = new Map<string, Uint8Array>();

/** The session key: HKDF of the admin secret, so a session cookie is never an admin bearer token and vice versa. */
function sessionKey(adminSecret: string): Uint8Array {
  let key = keys.get(adminSecret);
  if (key === undefined) {
    key = new Uint8Array(hkdfSync('sha256', adminSecret, 'sandpiper', 'console session v1', 32));
    keys.clear();
    keys.set(adminSecret, key);
  }
  return key;
}

/** Secure when the console is reached over https (a TLS proxy in front of the loopback listener says so). */
function isHttps(context: Context): boolean {
  return new URL(context.req.url).protocol === 'https:' || context.req.header('x-forwarded-proto') === 'https';
}

/**
 * Verifies the admin token and sets the session cookie (HttpOnly, SameSite=Strict, Secure on https, expiring with the
 * session). Answers the CSRF token the page sends back with every change.
 */
export async function signIn(
  context: Context,
  adminSecret: string,
  token: string,
  hours: number,
): Promise<ConsoleSession> {
  const principal = await verifyAdminBearer(`Bearer ${token}`, adminSecret, 'admin:read');
  const csrf = randomBytes(24).toString('base64url');
  const expires = Math.floor(Date.now() / 1000) + Math.round(hours * 3600);
  const session: ConsoleSession = { subject: principal.subject, scopes: principal.scopes, csrf, expires };
  const cookie = await mintConsoleSession(sessionKey(adminSecret), session);
  setCookie(context, SESSION_COOKIE, cookie, {
    httpOnly: true,
    sameSite: 'Strict',
    secure: isHttps(context),
    path: '/',
    expires: new Date(expires * 1000),
  });
  return session;
}

export function signOut(context: Context): void {
  deleteCookie(context, SESSION_COOKIE, { path: '/', secure: isHttps(context) });
}

/** The request's session, or undefined without a cookie or with one that is forged, expired or for another secret. */
export async function readSession(context: Context, adminSecret: string): Promise<ConsoleSession | undefined> {
  const cookie = getCookie(context, SESSION_COOKIE);
  if (!cookie || !adminSecret) return undefined;
  return verifyConsoleSession(sessionKey(adminSecret), cookie);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A change made with the session cookie must carry the session's CSRF token (a forged cross-site POST has none). */
export function checkCsrf(context: Context, session: ConsoleSession): void {
  if (SAFE_METHODS.has(context.req.method)) return;
  const sent = Buffer.from(context.req.header(CSRF_HEADER) ?? '');
  const expected = Buffer.from(session.csrf);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
    throw new HttpError(403, 'missing or wrong CSRF token');
}
