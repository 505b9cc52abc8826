// DOM helpers of the console. Text from chat, tools and the database is only ever set with textContent (never
// innerHTML), so a message containing markup is shown as text.

/** Creates an element: attributes (on* handlers become listeners), then children (strings become text nodes). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (name === 'text') node.textContent = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    );
  }
  return node;
}

/**
 * A button (a real <button>, so keyboard users reach and press it). `focusKey` names it across redraws: a live
 * update gives the focus back to the button with the same key.
 */
export function button(label, onclick, className, focusKey) {
  return el('button', { type: 'button', class: className, onclick, 'data-focus': focusKey }, label);
}

/**
 * A table of rows: columns are [label, value(row) → string | Node]; `actions(row)` adds a cell of buttons. On a
 * phone-sized screen each row becomes a card (the labels come from data-label).
 */
export function table(columns, rows, actions, emptyText = 'Nothing here.') {
  if (rows.length === 0) return el('p', { class: 'empty' }, emptyText);
  const head = el(
    'tr',
    {},
    columns.map(([label]) => el('th', { scope: 'col' }, label)),
    actions ? el('th', { scope: 'col' }, 'Actions') : null,
  );
  const body = rows.map((row) =>
    el(
      'tr',
      {},
      columns.map(([label, value]) => el('td', { 'data-label': label }, value(row) ?? '')),
      actions ? el('td', { 'data-label': 'Actions' }, actions(row)) : null,
    ),
  );
  return el('table', { class: 'cards' }, el('thead', {}, head), el('tbody', {}, body));
}

export function badge(text, kind) {
  return el('span', { class: kind ? `badge ${kind}` : 'badge' }, text);
}

/** Replaces the children of `node`. */
export function show(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((child) => child !== null && child !== undefined));
}
