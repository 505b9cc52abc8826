// Policies and approval grants: list, add, remove / revoke (admin:write for changes).
import { button, el, table } from './dom.js';

async function change(context, work, done) {
  try {
    await work();
    context.say(done);
    await context.rerender();
  } catch (error) {
    context.say(error.message, true);
  }
}

function field(id, label, control) {
  return el('div', {}, el('label', { for: id }, label), control);
}

function select(id, options) {
  return el(
    'select',
    { id, name: id },
    options.map((value) => el('option', { value }, value)),
  );
}

function grantForm(context) {
  const form = el(
    'form',
    { class: 'inline', 'aria-label': 'Add a grant' },
    field('grant-scope', 'Scope', select('grant-scope', ['user', 'channel', 'conversation'])),
    field(
      'grant-target',
      'Target (username, platform:channel or conversation id)',
      el('input', { id: 'grant-target', required: true }),
    ),
    field('grant-tool', 'Tool (glob)', el('input', { id: 'grant-tool', required: true })),
    field('grant-expires', 'Expires (e.g. 7d, optional)', el('input', { id: 'grant-expires' })),
    el('button', { type: 'submit' }, 'Add grant'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = (id) => form.querySelector(`#${id}`).value.trim();
    const body = { scope: value('grant-scope'), target: value('grant-target'), tool: value('grant-tool') };
    if (value('grant-expires')) body.expires = value('grant-expires');
    void change(context, () => context.admin('/grants', { method: 'POST', body }), 'Grant added.');
  });
  return form;
}

function policyForm(context) {
  const form = el(
    'form',
    { class: 'inline', 'aria-label': 'Add a policy' },
    field('policy-pattern', 'Pattern (approval label glob)', el('input', { id: 'policy-pattern', required: true })),
    field('policy-action', 'Action', select('policy-action', ['ask', 'allow', 'deny'])),
    el('button', { type: 'submit' }, 'Add policy'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = {
      pattern: form.querySelector('#policy-pattern').value.trim(),
      action: form.querySelector('#policy-action').value,
    };
    void change(context, () => context.admin('/policies', { method: 'POST', body }), 'Policy added.');
  });
  return form;
}

export async function policiesView(context) {
  const [{ policies }, { grants }] = await Promise.all([context.admin('/policies'), context.admin('/grants?all=1')]);
  const removePolicy = (p) =>
    button(
      'Remove',
      () =>
        change(
          context,
          () => context.admin(`/policies/${encodeURIComponent(p.policy_id)}`, { method: 'DELETE' }),
          `Policy ${p.pattern} removed.`,
        ),
      'danger',
    );
  const revokeGrant = (g) =>
    g.status === 'active'
      ? button(
          'Revoke',
          () =>
            change(
              context,
              () => context.admin(`/grants/${encodeURIComponent(g.grant_id)}`, { method: 'DELETE' }),
              `Grant ${g.tool} revoked.`,
            ),
          'danger',
        )
      : '';
  return [
    el('h2', {}, 'Tool policies'),
    table(
      [
        ['Pattern', (p) => p.pattern],
        ['Action', (p) => p.action],
        ['Priority', (p) => String(p.priority)],
        ['Enabled', (p) => (p.enabled ? 'yes' : 'no')],
        ['By', (p) => p.created_by],
      ],
      policies,
      context.canWrite ? removePolicy : undefined,
      'No tool policy.',
    ),
    context.canWrite ? policyForm(context) : null,
    el('h2', {}, 'Approval grants'),
    table(
      [
        ['Tool', (g) => g.tool],
        ['Scope', (g) => `${g.scope}: ${g.target}`],
        ['Arguments', (g) => g.args ?? 'any'],
        ['Status', (g) => g.status],
        ['Expires', (g) => g.expires ?? 'never'],
        ['By', (g) => g.created_by],
      ],
      grants,
      context.canWrite ? revokeGrant : undefined,
      'No grant.',
    ),
    context.canWrite ? grantForm(context) : null,
  ];
}
