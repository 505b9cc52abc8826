/**
 * Validates the REST bodies the fake Discord receives against Discord's official OpenAPI description of API v10
 * (vendored in test/fixtures/discord/openapi.json: discord/discord-api-spec specs/openapi.json, commit
 * 74fda0fad044407ea280043a03ffc9bc64c4e49e, MIT licence), as real Discord does (400, code 50035). A
 * permissive fake accepts payloads Discord refuses: button styles, modal lengths, archive durations, flags.
 * Bots are also limited to 2,000 characters of content, which the spec does not say.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const SPEC_PATH = fileURLToPath(new URL('../fixtures/discord/openapi.json', import.meta.url));
const MAX_CONTENT = 2000;

interface Operation {
  method: string;
  pattern: RegExp;
  pointer: string | undefined;
}

export interface BodyProblem {
  method: string;
  path: string;
  errors: string[];
}

/** Lazily compiled validators for the operations the fake is asked about. */
export class DiscordBodyValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  private constructor(spec: Record<string, unknown>) {
    this.ajv.addSchema({ ...spec, $id: 'discord' });
    const paths = (spec.paths ?? {}) as Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
    for (const [template, item] of Object.entries(paths)) {
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, operation] of Object.entries(item)) {
        const hasJson = operation.requestBody?.content?.['application/json'] !== undefined;
        const pointer = hasJson ? `discord#/paths/${escapePointer(template)}/${method}/requestBody/content/application~1json/schema` : undefined;
        this.operations.push({ method: method.toUpperCase(), pattern, pointer });
      }
    }
  }

  /** The validator, or undefined when the vendored spec is not on this machine (then nothing is checked). */
  static load(): DiscordBodyValidator | undefined {
    try {
      return new DiscordBodyValidator(JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as Record<string, unknown>);
    } catch {
      return undefined;
    }
  }

  /**
   * Problems with an object the fake sends (a dispatched message) against one of the spec's schemas by name
   * (`MessageResponse`, `PrivateChannelResponse`): a fake that sends what Discord never would tests nothing.
   */
  checkSchema(name: string, value: unknown): string[] {
    const pointer = `discord#/components/schemas/${name}`;
    let validate = this.compiled.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: pointer });
      this.compiled.set(pointer, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '/'}: ${error.message ?? 'invalid'}`);
  }

  /** Problems with a request body; empty when it is valid or no JSON body is described for the route. */
  check(method: string, path: string, body: unknown): string[] {
    if (body === undefined) return [];
    const operation = this.operations.find((candidate) => candidate.method === method && candidate.pattern.test(path));
    const problems: string[] = [];
    const content = (body as { content?: unknown }).content;
    if (typeof content === 'string' && content.length > MAX_CONTENT) problems.push(`/content: longer than ${MAX_CONTENT} characters`);
    if (operation?.pointer === undefined) return problems;
    let validate = this.compiled.get(operation.pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: operation.pointer });
      this.compiled.set(operation.pointer, validate);
    }
    if (!validate(body)) problems.push(...(validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '/'}: ${error.message ?? 'invalid'}`));
    return problems;
  }
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
