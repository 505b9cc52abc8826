/**
 * Validates the REST bodies the fake Discord receives against Discord's official OpenAPI description of API v10
 * (vendored in test/fixtures/discord/openapi.json: discord/discord-api-spec specs/openapi.json, commit
 * 74fda0fad044407ea280043a03ffc9bc64c4e49e, MIT licence), as real Discord does (400, code 50035). A
 * permissive fake accepts payloads Discord refuses: button styles, modal lengths, archive durations, flags.
 * Bots are also limited to 2,000 characters of content, which the spec does not say.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import standalone from 'ajv/dist/standalone/index.js';
import { packageRoot } from '../../src/shared/package-root.js';

const ROOT = packageRoot(import.meta.url);
const SPEC_PATH = path.join(ROOT, 'test', 'fixtures', 'discord', 'openapi.json');
const AJV_OPTIONS = { strict: false, allErrors: true, validateFormats: false, code: { source: true } } as const;
const MAX_CONTENT = 2000;

interface QueryParameter {
  pointer: string;
  /** Query values are text; these schema types are compared after conversion. */
  type: 'integer' | 'number' | 'boolean' | undefined;
}

interface Operation {
  method: string;
  pattern: RegExp;
  pointer: string | undefined;
  query: Map<string, QueryParameter>;
}

interface SpecOperation {
  requestBody?: { content?: Record<string, unknown> };
  parameters?: Array<{ name?: string; in?: string; schema?: { type?: string } }>;
}

export interface BodyProblem {
  method: string;
  path: string;
  errors: string[];
}

/** Lazily compiled validators for the operations the fake is asked about. */
export class DiscordBodyValidator {
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly cache: ValidatorCache;

  private constructor(
    private readonly spec: Record<string, unknown>,
    specText: string,
  ) {
    this.cache = new ValidatorCache(specText);
    const paths = (spec.paths ?? {}) as Record<string, Record<string, SpecOperation>>;
    for (const [template, item] of Object.entries(paths)) {
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters') continue;
        const base = `discord#/paths/${escapePointer(template)}/${method}`;
        const hasJson = operation.requestBody?.content?.['application/json'] !== undefined;
        const pointer = hasJson ? `${base}/requestBody/content/application~1json/schema` : undefined;
        this.operations.push({
          method: method.toUpperCase(),
          pattern,
          pointer,
          query: queryParameters(base, operation),
        });
      }
    }
  }

  /** The validator, or undefined when the vendored spec is not on this machine (then nothing is checked). */
  static load(): DiscordBodyValidator | undefined {
    try {
      const text = readFileSync(SPEC_PATH, 'utf8');
      return new DiscordBodyValidator(JSON.parse(text) as Record<string, unknown>, text);
    } catch {
      return undefined;
    }
  }

  /**
   * Problems with an object the fake sends (a dispatched message) against one of the spec's schemas by name
   * (`MessageResponse`, `PrivateChannelResponse`): a fake that sends what Discord never would tests nothing.
   */
  checkSchema(name: string, value: unknown): string[] {
    const validate = this.validatorFor(`discord#/components/schemas/${name}`);
    return validate(value)
      ? []
      : (validate.errors ?? [])
          .slice(0, 5)
          .map((error) => `${error.instancePath || '/'}: ${error.message ?? 'invalid'}`);
  }

  /** Problems with a request body; empty when it is valid or no JSON body is described for the route. */
  check(method: string, path: string, body: unknown): string[] {
    if (body === undefined) return [];
    const operation = this.operations.find((candidate) => candidate.method === method && candidate.pattern.test(path));
    const problems: string[] = [];
    const content = (body as { content?: unknown }).content;
    if (typeof content === 'string' && content.length > MAX_CONTENT)
      problems.push(`/content: longer than ${MAX_CONTENT} characters`);
    if (operation?.pointer === undefined) return problems;
    const validate = this.validatorFor(operation.pointer);
    if (!validate(body))
      problems.push(
        ...(validate.errors ?? [])
          .slice(0, 5)
          .map((error) => `${error.instancePath || '/'}: ${error.message ?? 'invalid'}`),
      );
    return problems;
  }

  /** Problems with a request's query string: parameters the operation does not declare, or values outside their schema. */
  checkQuery(method: string, path: string, query: URLSearchParams): string[] {
    const operation = this.operations.find((candidate) => candidate.method === method && candidate.pattern.test(path));
    if (operation === undefined) return [];
    const problems: string[] = [];
    for (const [name, raw] of query) {
      const parameter = operation.query.get(name);
      if (parameter === undefined) {
        problems.push(`?${name}: not a query parameter of ${method} ${path}`);
        continue;
      }
      const validate = this.validatorFor(parameter.pointer);
      const value =
        parameter.type === 'integer' || parameter.type === 'number'
          ? Number(raw)
          : parameter.type === 'boolean'
            ? raw === 'true'
            : raw;
      if (!validate(value))
        problems.push(`?${name}: ${(validate.errors ?? []).map((error) => error.message ?? 'invalid').join(', ')}`);
    }
    return problems;
  }

  private validatorFor(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (validate === undefined) {
      validate = this.cache.get(pointer, this.spec);
      this.compiled.set(pointer, validate);
    }
    return validate;
  }
}

/**
 * Compiled validators kept on disk across test processes. Compiling a schema of the 1.2 MB spec costs Ajv up to a
 * second of CPU, and every process that starts the fake Discord compiles the same few: the first compiles and writes
 * the validator as a standalone module (`.test-build/discord-ajv/<spec and Ajv version hash>/`), the others load it.
 * Written to a temporary name and renamed, so processes racing on one validator never read half a file.
 */
class ValidatorCache {
  private readonly dir: string;
  private readonly require = createRequire(import.meta.url);
  private ajv: Ajv2020 | undefined;

  constructor(specText: string) {
    const ajvVersion = (this.require('ajv/package.json') as { version: string }).version;
    const key = createHash('sha256')
      .update(specText)
      .update(ajvVersion)
      .update(JSON.stringify(AJV_OPTIONS))
      .digest('hex');
    this.dir = path.join(ROOT, '.test-build', 'discord-ajv', key.slice(0, 16));
  }

  get(pointer: string, spec: Record<string, unknown>): ValidateFunction {
    const file = path.join(this.dir, `${createHash('sha256').update(pointer).digest('hex').slice(0, 24)}.cjs`);
    if (existsSync(file)) return this.require(file) as ValidateFunction;
    this.ajv ??= this.createAjv(spec);
    const validate = this.ajv.compile({ $ref: pointer });
    try {
      mkdirSync(this.dir, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, standalone.default(this.ajv, validate));
      renameSync(partial, file);
    } catch {
      // A cache that cannot be written only costs the next process the compile.
    }
    return validate;
  }

  private createAjv(spec: Record<string, unknown>): Ajv2020 {
    const ajv = new Ajv2020(AJV_OPTIONS);
    ajv.addSchema({ ...spec, $id: 'discord' });
    return ajv;
  }
}

function queryParameters(base: string, operation: SpecOperation): Map<string, QueryParameter> {
  const query = new Map<string, QueryParameter>();
  (operation.parameters ?? []).forEach((parameter, index) => {
    if (parameter.in !== 'query' || typeof parameter.name !== 'string') return;
    const type = parameter.schema?.type;
    const known = type === 'integer' || type === 'number' || type === 'boolean' ? type : undefined;
    query.set(parameter.name, { pointer: `${base}/parameters/${index}/schema`, type: known });
  });
  return query;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
