// The console's shell: sign-in, the views' navigation, the live stream of changes and the status line.
import { admin, call, openEvents, setCsrf } from './api.js';
import { show } from './dom.js';
import { VIEWS } from './views.js';

const $ = (id) => document.getElementById(id);

const state = {
  session: undefined,
  view: 'conversations',
  /** The latest answer of each live source (conversations, approvals, mcp, health). */
  live: {},
  /** The conversation opened in the conversations view. */
  opened: undefined,
  events: undefined,
};

export function say(text, isError = false) {
  const message = $('message');
  message.textContent = text;
  message.classList.toggle('error', isError);
}

const canWrite = () => state.session?.scopes.includes('admin:write') === true;

async function render() {
  const view = VIEWS[state.view];
  for (const item of document.querySelectorAll('nav button')) {
    if (item.dataset.view === state.view) item.setAttribute('aria-current', 'page');
    else item.removeAttribute('aria-current');
  }
  const approvals = state.live.approvals ?? [];
  $('approvals-count').textContent = approvals.length > 0 ? `(${approvals.length})` : '';
  const focused = document.activeElement?.dataset?.focus;
  try {
    show($('view'), await view({ state, canWrite: canWrite(), rerender: render, say, admin }));
    if (focused) document.querySelector(`[data-focus="${CSS.escape(focused)}"]`)?.focus();
  } catch (error) {
    if (error.status === 401) signedOut('Your session ended; sign in again.');
    else say(error.message, true);
  }
}

function onLive(name, data) {
  state.live[name] = data;
  // A view that shows this source is drawn again; others keep what the operator is typing.
  if (VIEWS[state.view].sources?.includes(name)) void render();
  else if (name === 'approvals') $('approvals-count').textContent = data.length > 0 ? `(${data.length})` : '';
}

function signedIn(session) {
  state.session = session;
  setCsrf(session.csrf);
  $('signin').hidden = true;
  $('app').hidden = false;
  $('signout').hidden = false;
  $('who').textContent = `${session.subject} (${canWrite() ? 'admin' : 'read only'})`;
  state.events = openEvents(
    ['conversations', 'approvals', 'mcp', 'health'],
    onLive,
    (text) => ($('live').textContent = text),
  );
  void render();
}

function signedOut(text) {
  state.events?.close();
  state.session = undefined;
  $('app').hidden = true;
  $('signout').hidden = true;
  $('signin').hidden = false;
  $('who').textContent = '';
  $('live').textContent = '';
  if (text) say(text);
  $('token').focus();
}

async function signIn(event) {
  event.preventDefault();
  const input = $('token');
  try {
    const session = await call('/console/session', { method: 'POST', body: { token: input.value.trim() } });
    input.value = '';
    say('');
    signedIn(session);
  } catch (error) {
    say(
      error.status === 401 || error.status === 403
        ? 'That token was refused: use an admin token (sandpiper admin token).'
        : error.message,
      true,
    );
  }
}

async function signOut() {
  await call('/console/signout', { method: 'POST' }).catch(() => undefined);
  signedOut('Signed out.');
}

function start() {
  $('signin-form').addEventListener('submit', signIn);
  $('signout').addEventListener('click', signOut);
  for (const item of document.querySelectorAll('nav button')) {
    item.addEventListener('click', () => {
      state.view = item.dataset.view;
      state.opened = undefined;
      say('');
      void render().then(() => $('view').focus());
    });
  }
  call('/console/session').then(signedIn, () => signedOut());
}

start();
