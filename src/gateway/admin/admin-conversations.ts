/**
 * Admin views of conversations (the console's first view): the open workstreams with their owner, model, state and
 * token use, and one conversation's recent turns and tool calls. Text from chat and tools is shown to operators, so
 * secret-looking values are masked (`maskSecrets`) and long texts cut.
 */
import { contentText, type Message } from '../../agent/messages.js';
import { GatewayError } from '../../shared/errors.js';
import { INTERRUPTED_TOOL_RESULT } from '../../shared/interruption.js';
import { maskSecrets } from '../../shared/secret-masking.js';
import type { ConversationStore, RouteStore, TurnJournalStore, UserStore, WorkstreamRow, WorkstreamStore } from '../../storage/index.js';

export interface ConversationView {
  ws_id: string;
  name: string;
  title: string;
  /** `running` (a turn runs), `waiting` (for an approval or a form), `idle`, `error` or `closed`. */
  activity: string;
  state: string;
  owner: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  /** Messages accepted while a turn ran, waiting for their own turn. */
  queued: number;
  /** `<platform>:<thread id>`, '' when the conversation has no thread (terminal, notify). */
  thread: string;
  instance: string;
  created: string;
  updated: string;
}

export interface TurnItemView {
  role: string;
  text: string;
  /** Tool calls the assistant made in this message (name and masked arguments). */
  tool_calls: Array<{ name: string; arguments: string }>;
  /** A tool result's tool name. */
  tool: string;
  is_error: boolean;
}

type ConversationStores = {
  workstreams: WorkstreamStore;
  users: UserStore;
  routes: RouteStore;
  conversations: ConversationStore;
  turnJournal: Pick<TurnJournalStore, 'queued' | 'queuedWorkstreams'>;
};

const LIST_LIMIT = 100;
const RECENT_MESSAGES = 40;
const TEXT_LIMIT = 2000;

const ACTIVITY: Record<string, string> = { thinking: 'running', running: 'running', attention: 'waiting' };

async function view(stores: ConversationStores, row: WorkstreamRow, owners: Map<string, string>, queuing: ReadonlySet<string>): Promise<ConversationView> {
  if (!owners.has(row.userId)) owners.set(row.userId, (await stores.users.getUser(row.userId))?.username ?? '');
  const route = await stores.routes.getRouteByWorkstream(row.wsId);
  const queued = queuing.has(row.wsId) ? (await stores.turnJournal.queued(row.wsId)).length : 0;
  return {
    ws_id: row.wsId,
    name: maskSecrets(row.name),
    title: maskSecrets(row.title),
    activity: ACTIVITY[row.state] ?? row.state,
    state: row.state,
    owner: owners.get(row.userId) ?? '',
    model: row.modelAlias,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    queued,
    thread: route ? `${route.channelType}:${route.channelId}` : '',
    instance: row.nodeId,
    created: row.created,
    updated: row.updated,
  };
}

/** Open conversations, the most recently active first (at most 100; closed ones only with `all`). */
export async function listConversations(stores: ConversationStores, options: { all?: boolean } = {}): Promise<ConversationView[]> {
  const rows = (await stores.workstreams.list()).filter((row) => options.all === true || row.state !== 'closed').slice(0, LIST_LIMIT);
  const owners = new Map<string, string>();
  const queuing = new Set(await stores.turnJournal.queuedWorkstreams());
  const views: ConversationView[] = [];
  for (const row of rows) views.push(await view(stores, row, owners, queuing));
  return views;
}

const cut = (text: string): string => maskSecrets(text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}…` : text);

function turnItem(message: Message): TurnItemView {
  const base = { role: message.role, text: cut(contentText(message.content)), tool_calls: [], tool: '', is_error: false };
  if (message.role === 'assistant') {
    return { ...base, tool_calls: (message.toolCalls ?? []).map((call) => ({ name: call.name, arguments: cut(call.arguments) })) };
  }
  if (message.role === 'tool') return { ...base, tool: message.name, is_error: message.isError === true };
  return base;
}

/** One conversation and its recent messages (system prompts left out), oldest first. */
export async function showConversation(stores: ConversationStores, wsId: string): Promise<{ conversation: ConversationView; recent: TurnItemView[] }> {
  const row = await stores.workstreams.get(wsId);
  if (row === undefined) throw new GatewayError('NOT_FOUND', `no conversation ${wsId.slice(0, 64)}`);
  const messages = (await stores.conversations.load(wsId)).filter((message) => message.role !== 'system');
  const conversation = await view(stores, row, new Map(), new Set(await stores.turnJournal.queuedWorkstreams()));
  const recent = messages.slice(-RECENT_MESSAGES).map(turnItem);
  // Loading answers a call still waiting (for its approval, or running) as interrupted; while the turn is live it is not.
  if (conversation.activity === 'running' || conversation.activity === 'waiting') {
    for (let index = recent.length - 1; index >= 0 && recent[index]?.role === 'tool'; index -= 1) {
      const item = recent[index] as TurnItemView;
      if (item.text === INTERRUPTED_TOOL_RESULT) recent[index] = { ...item, text: '(not finished yet)', is_error: false };
    }
  }
  return { conversation, recent };
}
