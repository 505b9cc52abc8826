// Calls to the gateway: the admin API with the session cookie (same origin) and the session's CSRF token on every
// change; the live stream of changes as server-sent events.

let csrf = '';

export function setCsrf(token) {
  csrf = token;
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Calls `path`; JSON in and out; throws ApiError with the server's error text on a failure. */
export async function call(path, { method = 'GET', body } = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let data = {};
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = { error: text.slice(0, 200) };
  }
  if (!response.ok)
    throw new ApiError(response.status, typeof data.error === 'string' ? data.error : `HTTP ${response.status}`);
  return data;
}

export const admin = (path, options) => call(`/v1/api/admin${path}`, options);

/** Opens the event stream; `onEvent(name, data)` for each change; returns the EventSource (close it to stop). */
export function openEvents(names, onEvent, onState) {
  const source = new EventSource('/console/events');
  for (const name of names) source.addEventListener(name, (event) => onEvent(name, JSON.parse(event.data)));
  source.addEventListener('open', () => onState('live'));
  source.addEventListener('error', () =>
    onState(source.readyState === EventSource.CLOSED ? 'disconnected' : 'reconnecting'),
  );
  return source;
}
