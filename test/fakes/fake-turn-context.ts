/** A TurnContext for unit tests of the turn steps: a recording host, scripted tools and a FakeModelProvider. */
import type { AgentEvent } from '../../src/agent/events.js';
import type { Message, Usage } from '../../src/agent/messages.js';
import type {
  ToolContext,
  ToolDefinition,
  ToolPreparation,
  ToolResult,
  ToolSource,
} from '../../src/agent/tools/tool.js';
import type {
  ApprovalRequestInput,
  TurnApprovalDecision,
  TurnContext,
  TurnHost,
} from '../../src/agent/turn/turn-types.js';
import type { WorkstreamStatus } from '../../src/agent/workstream-api.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import type { PolicyAction } from '../../src/storage/policy-store.js';
import { FakeModelProvider } from './fake-model-provider.js';

/** What the fake host saw. */
export interface RecordingHost extends TurnHost {
  events: AgentEvent[];
  persisted: Message[];
  /** Answers committed at the *answered* commit point (also in `persisted`). */
  answers: Message[];
  replaced: Message[][];
  states: WorkstreamStatus[];
  usage: Usage[];
  approvalRequests: ApprovalRequestInput[];
  alwaysLabels: string[];
  /** Policy action per label (undefined = no policy). */
  policies: Map<string, PolicyAction>;
  /** The decision `requestApproval` answers with (default: approved). */
  decide: (input: ApprovalRequestInput) => Omit<TurnApprovalDecision, 'approvalId'>;
}

export function createRecordingHost(): RecordingHost {
  const host: RecordingHost = {
    events: [],
    persisted: [],
    answers: [],
    replaced: [],
    states: [],
    usage: [],
    approvalRequests: [],
    alwaysLabels: [],
    policies: new Map(),
    decide: () => ({ approved: true, always: false, feedback: null, decidedBy: 'owner' }),
    emit: (event) => {
      host.events.push(event);
    },
    persist: (message) => {
      host.persisted.push(message);
      return Promise.resolve();
    },
    answered: (message) => {
      host.answers.push(message);
      host.persisted.push(message);
      return Promise.resolve();
    },
    replaceHistory: (messages) => {
      host.replaced.push([...messages]);
      return Promise.resolve();
    },
    settled: () => Promise.resolve(),
    setState: (state) => {
      host.states.push(state);
      return Promise.resolve();
    },
    addUsage: (usage) => {
      host.usage.push(usage);
      return Promise.resolve();
    },
    evaluatePolicies: (labels) => Promise.resolve(labels.map((label) => host.policies.get(label))),
    requestApproval: (input) => {
      host.approvalRequests.push(input);
      return Promise.resolve({ approvalId: `approval-${host.approvalRequests.length}`, ...host.decide(input) });
    },
    addAutoApprove: (labels) => {
      host.alwaysLabels.push(...labels);
      return Promise.resolve();
    },
    claimExecution: () => Promise.resolve(true),
  };
  return host;
}

/** One scripted tool of a FakeToolSource. */
export interface FakeTool {
  name: string;
  primaryKey?: string;
  /** Default: needs approval, label = name. */
  prepare?: (args: Record<string, unknown>) => Partial<ToolPreparation>;
  /** Default: `ran <name> <args JSON>`. */
  run?: (args: Record<string, unknown>, context: ToolContext) => Promise<ToolResult>;
}

/** A ToolSource over scripted tools; records prepared and executed calls. */
export class FakeToolSource implements ToolSource {
  readonly prepared: Array<{ name: string; args: Record<string, unknown> }> = [];
  readonly calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  readonly #tools: Map<string, FakeTool>;

  constructor(tools: FakeTool[]) {
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  listTools(): Promise<ToolDefinition[]> {
    return Promise.resolve(
      [...this.#tools.values()].map((tool) => ({
        name: tool.name,
        description: `fake ${tool.name}`,
        parameters: { type: 'object', properties: {} },
        agent: false,
        taskAgent: false,
        autoApprove: false,
        ...(tool.primaryKey === undefined ? {} : { primaryKey: tool.primaryKey }),
      })),
    );
  }

  hasTool(name: string): boolean {
    return this.#tools.has(name);
  }

  prepare(name: string, args: Record<string, unknown>): Promise<ToolPreparation> {
    this.prepared.push({ name, args });
    const tool = this.#tools.get(name);
    const base: ToolPreparation = {
      header: `⚙ ${name}`,
      preview: JSON.stringify(args),
      needsApproval: true,
      approvalLabel: name,
    };
    return Promise.resolve({ ...base, ...(tool?.prepare?.(args) ?? {}) });
  }

  callTool(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
    this.calls.push({ name, args });
    const tool = this.#tools.get(name);
    if (tool?.run !== undefined) return tool.run(args, context);
    return Promise.resolve({ output: `ran ${name} ${JSON.stringify(args)}`, isError: false });
  }
}

export interface FakeTurnContext extends TurnContext {
  host: RecordingHost;
  provider: FakeModelProvider;
}

/** A TurnContext with a recording host, the given tool sources and a FakeModelProvider streamed without retries. */
export function createFakeTurnContext(
  overrides: Partial<Omit<TurnContext, 'host'>> & { contextWindow?: number } = {},
): FakeTurnContext {
  const provider = new FakeModelProvider();
  const host = createRecordingHost();
  const { contextWindow, ...rest } = overrides;
  return {
    wsId: 'ws-test',
    turnId: 'turn-test',
    cwd: '/tmp',
    history: [],
    model: { provider, model: 'fake', contextWindow: contextWindow ?? 100_000, maxTokens: 1000, supportsVision: false },
    toolSources: [],
    streamModel: (p, request, options) => p.stream(request, options),
    systemPrompt: () => Promise.resolve('system'),
    autoApproveAll: false,
    autoApproveLabels: () => [],
    maxSteps: 10,
    toolTimeoutMs: 5000,
    readFiles: new Set(),
    logger: createSilentLogger(),
    signal: new AbortController().signal,
    ...rest,
    host,
    provider,
  };
}
