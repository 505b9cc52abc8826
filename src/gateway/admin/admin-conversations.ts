/**
 * Admin views of conversations (the console's first view): the open workstreams with their owner, model, state and
 * token use, and one conversation's recent turns and tool calls. Text from chat and tools is shown to operators, so
 * secret-looking values are masked (`maskSecrets`) and long texts cut.
 */
import { contentText, type Message } from '../../agent/messages.js';
import { GatewayError } from '../../shared/errors.js';
import { INTERRUPTED_TOOL_RESULT } from '../../shared/interruption.js';
import { maskSecrets } from '../../shared/secret-masking.js';
import { LRUCache } from 'lru-cache';
import type {
  ConversationStore,
  RouteStore,
  TurnJournalStore,
  UserStore,
  WorkstreamRow,
  WorkstreamState,
  WorkstreamStore,
} from '../../storage/index.js';

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
  turnJournal: Pick<TurnJournalStore, 'turningWorkstreams' | 'forWorkstream' | 'queued' | 'queuedWorkstreams'>;
};

const LIST_LIMIT = 100;
const RECENT_MESSAGES = 40;
const TEXT_LIMIT = 2000;

const ACTIVITY: Record<string, string> = { thinking: 'running', running: 'running', attention: 'waiting' };

/**
 * Owner names and threads by id, kept across the console feed's reads (both rarely change): a read of the list then
 * costs a few statements, not several per conversation. Bounded; a stale name shows until it is evicted.
 */
export interface ConversationLookups {
  owners: Map<string, string> | LRUCache<string, string>;
  threads: Map<string, string> | LRUCache<string, string>;
}

export function conversationLookups(max = 2000): ConversationLookups {
  return { owners: new LRUCache({ max }), threads: new LRUCache({ max }) };
}

async function view(
  stores: ConversationStores,
  row: WorkstreamRow,
  lookups: ConversationLookups,
  queuing: ReadonlySet<string>,
  turning: ReadonlySet<string>,
): Promise<ConversationView> {
  let owner = lookups.owners.get(row.userId);
  if (owner === undefined)
    lookups.owners.set(row.userId, (owner = (await stores.users.getUser(row.userId))?.username ?? ''));
  let thread = lookups.threads.get(row.wsId);
  if (thread === undefined) {
    const route = await stores.routes.getRouteByWorkstream(row.wsId);
    thread = route ? `${route.channelType}:${route.channelId}` : '';
    // A conversation without a thread yet may get one: only a found thread is kept.
    if (route) lookups.threads.set(row.wsId, thread);
  }
  const queued = queuing.has(row.wsId) ? (await stores.turnJournal.queued(row.wsId)).length : 0;
  return {
    ws_id: row.wsId,
    name: maskSecrets(row.name),
    title: maskSecrets(row.title),
    // A turn's own thinking/running is not stored while the row says idle (storesState): its journal row shows it.
    activity: row.state === 'idle' && turning.has(row.wsId) ? 'running' : (ACTIVITY[row.state] ?? row.state),
    state: row.state,
    owner,
    model: row.modelAlias,
    input_tokens: row.inputTokens,
    output_tokens: row.outputTokens,
    queued,
    thread,
    instance: row.nodeId,
    created: row.created,
    updated: row.updated,
  };
}

const OPEN_STATES: readonly WorkstreamState[] = ['thinking', 'running', 'attention', 'error', 'idle'];
const newestFirst = (a: WorkstreamRow, b: WorkstreamRow): number =>
  a.updated === b.updated ? 0 : a.updated < b.updated ? 1 : -1;

/** Open conversations, the most recently active first (at most 100; closed ones only with `all`). */
export async function listConversations(
  stores: ConversationStores,
  options: { all?: boolean; lookups?: ConversationLookups } = {},
): Promise<ConversationView[]> {
  // Closed conversations pile up over time: the open states are read one by one (indexed) rather than all rows.
  const rows =
    options.all === true
      ? await stores.workstreams.list()
      : (await Promise.all(OPEN_STATES.map((state) => stores.workstreams.list({ state })))).flat().sort(newestFirst);
  const lookups = options.lookups ?? { owners: new Map(), threads: new Map() };
  const queuing = new Set(await stores.turnJournal.queuedWorkstreams());
  const turning = new Set(await stores.turnJournal.turningWorkstreams());
  const views: ConversationView[] = [];
  for (const row of rows.slice(0, LIST_LIMIT)) views.push(await view(stores, row, lookups, queuing, turning));
  return views;
}

const cut = (text: string): string => maskSecrets(text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}…` : text);

function turnItem(message: Message): TurnItemView {
  const base = {
    role: message.role,
    text: cut(contentText(message.content)),
    tool_calls: [],
    tool: '',
    is_error: false,
  };
  if (message.role === 'assistant') {
    return {
      ...base,
      tool_calls: (message.toolCalls ?? []).map((call) => ({ name: call.name, arguments: cut(call.arguments) })),
    };
  }
  if (message.role === 'tool') return { ...base, tool: message.name, is_error: message.isError === true };
  return base;
}

/** One conversation and its recent messages (system prompts left out), oldest first. */
export async function showConversation(
  stores: ConversationStores,
  wsId: string,
): Promise<{ conversation: ConversationView; recent: TurnItemView[] }> {
  const row = await stores.workstreams.get(wsId);
  if (row === undefined) throw new GatewayError('NOT_FOUND', `no conversation ${wsId.slice(0, 64)}`);
  const messages = (await stores.conversations.load(wsId)).filter((message) => message.role !== 'system');
  const lookups = { owners: new Map(), threads: new Map() };
  const queuing = new Set(await stores.turnJournal.queuedWorkstreams());
  const turn = await stores.turnJournal.forWorkstream(wsId);
  const conversation = await view(stores, row, lookups, queuing, new Set(turn === undefined ? [] : [wsId]));
  const recent = messages.slice(-RECENT_MESSAGES).map(turnItem);
  // Loading answers a call still waiting (for its approval, or running) as interrupted; while the turn is live it is not.
  if (conversation.activity === 'running' || conversation.activity === 'waiting') {
    for (let index = recent.length - 1; index >= 0 && recent[index]?.role === 'tool'; index -= 1) {
      const item = recent[index] as TurnItemView;
      if (item.text === INTERRUPTED_TOOL_RESULT)
        recent[index] = { ...item, text: '(not finished yet)', is_error: false };
    }
  }
  return { conversation, recent };
}
