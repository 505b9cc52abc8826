/**
 * The operator console (ADR 0047), served on the admin listener only when `console.enabled`: the page and its static
 * files (`console/` in the package, no build step), sign-in and sign-out, the live stream of changes, and the
 * middleware that lets a console session call the admin routes (CSRF checked on every change). Every answer carries a
 * strict Content-Security-Policy and refuses to be framed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import { isPlainObject, safeParseJson } from '../../shared/json.js';
import { packageRoot } from '../../shared/package-root.js';
import { CONSOLE_PRINCIPAL } from '../http/auth.js';
import { HttpError } from '../http/http-errors.js';
import type { ConsoleFeed } from './console-feed.js';
import { checkCsrf, readSession, signIn, signOut, type ConsoleSession } from './console-session.js';

export interface ConsoleRoutesDeps {
  adminSecret: string;
  /** How long a session lasts (`console.session_hours`). */
  sessionHours: number;
  feed: ConsoleFeed;
  /** Aborted at shutdown: open event streams end so the listener can close. */
  signal: AbortSignal;
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface Asset {
  body: string;
  type: string;
}

/** The console's files, read once: only these names are served (no path from a request reaches the file system). */
function loadAssets(): Map<string, Asset> {
  const folder = path.join(packageRoot(import.meta.url), 'console');
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(folder)) {
    const type = TYPES[path.extname(name)];
    if (type !== undefined) assets.set(name, { body: readFileSync(path.join(folder, name), 'utf8'), type });
  }
  return assets;
}

const securityHeaders: MiddlewareHandler = async (context, next) => {
  await next();
  context.header('Content-Security-Policy', CSP);
  context.header('X-Frame-Options', 'DENY');
  context.header('X-Content-Type-Options', 'nosniff');
  context.header('Referrer-Policy', 'no-referrer');
  context.header('Cross-Origin-Opener-Policy', 'same-origin');
  context.header('Cache-Control', 'no-store');
};

/** A console session on an admin route: checked (CSRF on changes) and handed to the route's guard. */
function sessionForAdminRoutes(adminSecret: string): MiddlewareHandler {
  return async (context, next) => {
    if (context.req.header('authorization') === undefined) {
      const session = await readSession(context, adminSecret);
      if (session !== undefined) {
        checkCsrf(context, session);
        context.set(CONSOLE_PRINCIPAL, session);
      }
    }
    await next();
  };
}

async function requireSession(context: Context, adminSecret: string): Promise<ConsoleSession> {
  const session = await readSession(context, adminSecret);
  if (session === undefined) throw new HttpError(401, 'sign in to the console');
  return session;
}

const sessionView = (session: ConsoleSession) => ({
  subject: session.subject,
  scopes: [...session.scopes].sort(),
  csrf: session.csrf,
  expires: new Date(session.expires * 1000).toISOString(),
});

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/** Sign-in takes a JSON body from this console only: a form posted from another site is refused before the token is read. */
async function signInBody(context: Context): Promise<string> {
  // The browser's Origin must name the host it asked (behind a TLS proxy, the host the proxy forwards).
  const origin = context.req.header('origin');
  const host = context.req.header('x-forwarded-host') ?? context.req.header('host') ?? new URL(context.req.url).host;
  if (origin !== undefined && hostOf(origin) !== host) throw new HttpError(403, 'cross-site sign-in refused');
  if (!(context.req.header('content-type') ?? '').startsWith('application/json')) throw new HttpError(415, 'send JSON');
  const parsed = safeParseJson(await context.req.text());
  const token = parsed.ok && isPlainObject(parsed.value) ? parsed.value['token'] : undefined;
  if (typeof token !== 'string' || token.trim() === '') throw new HttpError(400, 'token is required');
  return token.trim();
}

function addEvents(routes: Hono, deps: ConsoleRoutesDeps): void {
  routes.get('/console/events', async (context) => {
    await requireSession(context, deps.adminSecret);
    // The stream's socket is not kept alive after it ends, so a shutdown does not wait for it to be idle.
    context.header('Connection', 'close');
    return streamSSE(context, async (stream) => {
      let writes = Promise.resolve();
      const unsubscribe = deps.feed.subscribe((event) => {
        writes = writes.then(() => stream.writeSSE({ event: event.name, data: event.data })).catch(() => undefined);
      });
      await new Promise<void>((resolve) => {
        stream.onAbort(resolve);
        if (deps.signal.aborted) resolve();
        deps.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      unsubscribe();
      await writes;
    });
  });
}

export function createConsoleRoutes(deps: ConsoleRoutesDeps): Hono {
  const assets = loadAssets();
  const routes = new Hono();
  routes.use('/v1/api/admin/*', sessionForAdminRoutes(deps.adminSecret));
  routes.use('/console', securityHeaders);
  routes.use('/console/*', securityHeaders);
  const page = (context: Context, name: string): Response => {
    const asset = assets.get(name);
    if (asset === undefined) throw new HttpError(404, 'not found');
    return context.body(asset.body, 200, { 'content-type': asset.type });
  };
  routes.get('/console', (context) => page(context, 'index.html'));
  routes.get('/console/assets/:name', (context) => page(context, context.req.param('name')));
  routes.get('/console/session', async (context) =>
    context.json(sessionView(await requireSession(context, deps.adminSecret))),
  );
  routes.post('/console/session', async (context) => {
    const session = await signIn(context, deps.adminSecret, await signInBody(context), deps.sessionHours);
    return context.json(sessionView(session));
  });
  routes.post('/console/signout', async (context) => {
    checkCsrf(context, await requireSession(context, deps.adminSecret));
    signOut(context);
    return context.json({ status: 'signed out' });
  });
  addEvents(routes, deps);
  return routes;
}
