// Token use over time per user, channel or model, as an SVG bar chart drawn from GET /v1/api/admin/usage
// (`{usage: [{key, label, day, turns, input_tokens, output_tokens}]}`); "usage not available" when the route is absent.
import { button, el } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const COLOURS = ['#1f6feb', '#2e7d32', '#c62828', '#8e24aa', '#ef6c00', '#00838f'];

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Stacked bars per day, one colour per key (the five largest keys, the rest as "other"). */
export function usageChart(rows) {
  const totals = new Map();
  for (const row of rows)
    totals.set(row.label || row.key, (totals.get(row.label || row.key) ?? 0) + row.input_tokens + row.output_tokens);
  const top = [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([label]) => label);
  const days = [...new Set(rows.map((row) => row.day))].sort();
  const perDay = days.map((day) => {
    const parts = new Map();
    for (const row of rows.filter((r) => r.day === day)) {
      const label = top.includes(row.label || row.key) ? row.label || row.key : 'other';
      parts.set(label, (parts.get(label) ?? 0) + row.input_tokens + row.output_tokens);
    }
    return { day, parts };
  });
  const max = Math.max(1, ...perDay.map(({ parts }) => [...parts.values()].reduce((a, b) => a + b, 0)));
  const width = 720;
  const height = 260;
  const chartHeight = 200;
  const barWidth = Math.min(60, Math.max(8, Math.floor((width - 60) / Math.max(1, days.length)) - 6));
  const chart = svg('svg', {
    class: 'chart',
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': `Tokens per day, ${days.length} days`,
  });
  chart.append(svg('text', { x: 0, y: 12 }, `max ${max.toLocaleString()} tokens/day`));
  const labels = [...top, 'other'];
  perDay.forEach(({ day, parts }, index) => {
    const x = 50 + index * (barWidth + 6);
    let y = chartHeight + 20;
    for (const [label, value] of parts) {
      const h = Math.round((value / max) * chartHeight);
      y -= h;
      const rect = svg('rect', {
        x,
        y,
        width: barWidth,
        height: h,
        fill: COLOURS[labels.indexOf(label) % COLOURS.length],
      });
      rect.append(svg('title', {}, `${day} · ${label}: ${value.toLocaleString()} tokens`));
      chart.append(rect);
    }
    chart.append(svg('text', { x, y: chartHeight + 36 }, day.slice(5)));
  });
  const legend = el(
    'ul',
    {},
    labels
      .filter((label) => label !== 'other' || perDay.some(({ parts }) => parts.has('other')))
      .map((label) => el('li', {}, `■ ${label}`)),
  );
  legend.querySelectorAll('li').forEach((item, index) => (item.style.color = COLOURS[index % COLOURS.length]));
  return [chart, legend];
}

export async function usageView(context) {
  const by = context.state.usageBy ?? 'user';
  const choose = (value) => {
    const choice = button(
      value,
      () => {
        context.state.usageBy = value;
        void context.rerender();
      },
      undefined,
      `usage:${value}`,
    );
    choice.setAttribute('aria-pressed', String(value === by));
    return choice;
  };
  const heading = [
    el('h2', {}, `Usage per ${by}, last 7 days`),
    el(
      'p',
      {},
      ['user', 'channel', 'model'].map((value) => [choose(value), ' ']),
    ),
  ];
  let answer;
  try {
    answer = await context.admin(`/usage?by=${by}&since=7d`);
  } catch (error) {
    if (error.status === 404) return [heading, el('p', { class: 'empty' }, 'Usage not available on this gateway.')];
    throw error;
  }
  if (answer.usage.length === 0) return [heading, el('p', { class: 'empty' }, 'No usage recorded in this period.')];
  return [heading, usageChart(answer.usage)];
}
