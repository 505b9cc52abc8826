/**
 * Parses a watch's `stop_on` condition, a small Python-style expression language, with jsep (configured for Python
 * operators) and checks it statically: only the listed variables, builtins and methods, only data expressions.
 * Nothing here or in the evaluator ever hands model text to `eval`, `Function` or `vm`.
 */
import jsep from 'jsep';
import { err, ok, type Result } from '../../shared/result.js';
import { BUILTIN_NAMES, METHOD_NAMES } from './stop-on-builtins.js';

/** Variables a condition can read. */
export const CONDITION_VARIABLES: readonly string[] = ['output', 'data', 'exit_code', 'prev_output', 'changed'];
/** Longest accepted condition, in characters. */
export const MAX_CONDITION_LENGTH = 1000;
/** Deepest accepted expression tree. */
export const MAX_CONDITION_DEPTH = 40;

/** The node shapes a checked condition consists of. */
export type ConditionNode =
  | { type: 'Literal'; value: string | number | boolean | null }
  | { type: 'Identifier'; name: string }
  | { type: 'ArrayExpression'; elements: ConditionNode[] }
  | { type: 'UnaryExpression'; operator: string; argument: ConditionNode }
  | { type: 'BinaryExpression'; operator: string; left: ConditionNode; right: ConditionNode }
  | { type: 'Subscript'; object: ConditionNode; index: ConditionNode }
  | { type: 'Call'; callee: string; arguments: ConditionNode[] }
  | { type: 'MethodCall'; object: ConditionNode; method: string; arguments: ConditionNode[] };

const JS_ONLY_BINARY = ['||', '??', '&&', '|', '^', '&', '===', '!==', '<<', '>>', '>>>'];
const JS_ONLY_UNARY = ['!', '~'];

let configured = false;

/** jsep's operator tables are module-wide; Sandpiper uses jsep for conditions only, so they are set once here. */
function configureJsep(): void {
  if (configured) return;
  configured = true;
  for (const op of JS_ONLY_BINARY) jsep.removeBinaryOp(op);
  for (const op of JS_ONLY_UNARY) jsep.removeUnaryOp(op);
  jsep.addBinaryOp('or', 1);
  jsep.addBinaryOp('and', 2);
  for (const op of ['in', 'not in', 'is', 'is not']) jsep.addBinaryOp(op, 7);
  jsep.addBinaryOp('//', 10);
  jsep.addUnaryOp('not');
  jsep.addLiteral('True', true);
  jsep.addLiteral('False', false);
  jsep.addLiteral('None', null);
}

/** Parses and checks a condition; the error text tells the model what to change. */
export function parseCondition(source: string): Result<ConditionNode> {
  configureJsep();
  const text = source.trim();
  if (text === '') return err('the condition is empty');
  if (text.length > MAX_CONDITION_LENGTH)
    return err(`the condition is too long (${text.length} characters; at most ${MAX_CONDITION_LENGTH})`);
  let tree: jsep.Expression;
  try {
    tree = jsep(text);
  } catch (error) {
    if (error instanceof RangeError) return err('the condition is nested too deeply');
    return err(`syntax error: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return ok(hoistNot(convert(tree, 0)));
  } catch (error) {
    if (error instanceof ConditionSyntaxError) return err(error.message);
    if (error instanceof RangeError) return err('the condition is nested too deeply');
    throw error;
  }
}

class ConditionSyntaxError extends Error {}

function refuse(message: string): never {
  throw new ConditionSyntaxError(message);
}

function child(node: jsep.Expression, key: string): jsep.Expression {
  const value = node[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof RegExp)
    refuse('unsupported syntax');
  return value as jsep.Expression;
}

function children(node: jsep.Expression, key: string): jsep.Expression[] {
  const value = node[key];
  if (!Array.isArray(value)) refuse('unsupported syntax');
  return value.map((entry) => {
    if (entry === null || typeof entry !== 'object' || entry instanceof RegExp)
      refuse('empty or unsupported list element');
    return entry as jsep.Expression;
  });
}

/** jsep's tree → our checked nodes; refuses everything that is not a plain data expression. */
function convert(node: jsep.Expression, depth: number): ConditionNode {
  if (depth > MAX_CONDITION_DEPTH)
    refuse(`the condition is nested too deeply (more than ${MAX_CONDITION_DEPTH} levels)`);
  const next = (inner: jsep.Expression): ConditionNode => convert(inner, depth + 1);
  switch (node.type) {
    case 'Literal':
      return literal(node);
    case 'Identifier':
      return identifier(String(node['name']));
    case 'ArrayExpression':
      return { type: 'ArrayExpression', elements: children(node, 'elements').map(next) };
    case 'UnaryExpression':
      return { type: 'UnaryExpression', operator: String(node['operator']), argument: next(child(node, 'argument')) };
    case 'BinaryExpression':
      return {
        type: 'BinaryExpression',
        operator: String(node['operator']),
        left: next(child(node, 'left')),
        right: next(child(node, 'right')),
      };
    case 'MemberExpression':
      if (node['computed'] !== true) refuse(`attribute access is only allowed to call a method, e.g. output.lower()`);
      if (node['optional'] === true) refuse('"?." is not supported');
      return { type: 'Subscript', object: next(child(node, 'object')), index: next(child(node, 'property')) };
    case 'CallExpression':
      return call(node, next);
    case 'Compound':
      refuse('only a single expression is allowed (check for a missing operator between two values)');
    // falls through: refuse never returns
    default:
      refuse(`${describeNode(node.type)} is not supported`);
  }
}

function describeNode(type: string): string {
  const names: Record<string, string> = {
    ConditionalExpression: 'the "?:" operator',
    ThisExpression: '"this"',
    SequenceExpression: 'a comma-separated sequence',
  };
  return names[type] ?? `the syntax "${type}"`;
}

function literal(node: jsep.Expression): ConditionNode {
  const value = node['value'];
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) {
    return { type: 'Literal', value };
  }
  refuse('unsupported literal');
}

function identifier(name: string): ConditionNode {
  if (CONDITION_VARIABLES.includes(name) || BUILTIN_NAMES.includes(name)) return { type: 'Identifier', name };
  refuse(
    `unknown name '${name}'; available: ${CONDITION_VARIABLES.join(', ')}, and the functions ${BUILTIN_NAMES.join(', ')}`,
  );
}

function call(node: jsep.Expression, next: (inner: jsep.Expression) => ConditionNode): ConditionNode {
  const callee = child(node, 'callee');
  const args = children(node, 'arguments').map(next);
  if (callee.type === 'Identifier') {
    const name = String(callee['name']);
    if (!BUILTIN_NAMES.includes(name))
      refuse(`'${name}' is not a function you can call; available: ${BUILTIN_NAMES.join(', ')}`);
    return { type: 'Call', callee: name, arguments: args };
  }
  if (callee.type === 'MemberExpression' && callee['computed'] !== true) {
    const property = child(callee, 'property');
    const method = property.type === 'Identifier' ? String(property['name']) : '';
    if (!METHOD_NAMES.includes(method)) refuse(`unknown method '${method}'; available: ${METHOD_NAMES.join(', ')}`);
    return { type: 'MethodCall', object: next(child(callee, 'object')), method, arguments: args };
  }
  refuse('only named functions and methods can be called');
}

const BOOLEAN_OPERATORS = new Set(['and', 'or']);

/**
 * jsep binds unary operators tighter than every binary one, Python binds `not` looser than comparisons and
 * arithmetic: `not "x" in output` means `not ("x" in output)`. Rewrites `(not a) op b` into `not (a op b)`.
 */
function hoistNot(node: ConditionNode): ConditionNode {
  switch (node.type) {
    case 'BinaryExpression': {
      const left = hoistNot(node.left);
      const right = hoistNot(node.right);
      if (!BOOLEAN_OPERATORS.has(node.operator) && left.type === 'UnaryExpression' && left.operator === 'not') {
        return {
          type: 'UnaryExpression',
          operator: 'not',
          argument: hoistNot({ type: 'BinaryExpression', operator: node.operator, left: left.argument, right }),
        };
      }
      return { ...node, left, right };
    }
    case 'UnaryExpression':
      return { ...node, argument: hoistNot(node.argument) };
    case 'ArrayExpression':
      return { ...node, elements: node.elements.map(hoistNot) };
    case 'Subscript':
      return { ...node, object: hoistNot(node.object), index: hoistNot(node.index) };
    case 'Call':
      return { ...node, arguments: node.arguments.map(hoistNot) };
    case 'MethodCall':
      return { ...node, object: hoistNot(node.object), arguments: node.arguments.map(hoistNot) };
    default:
      return node;
  }
}
