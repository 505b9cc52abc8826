/** Evaluates a checked `stop_on` condition over one poll's variables, within a step and time budget. */
import { err, ok, type Result } from '../../shared/result.js';
import { builtin, callBuiltin, callMethod } from './stop-on-builtins.js';
import type { ConditionNode } from './stop-on-parse.js';
import {
  asNumber,
  Budget,
  checkLength,
  ConditionError,
  fail,
  pyCompare,
  pyContains,
  pyEquals,
  pySubscript,
  truthy,
  typeName,
  type PyValue,
} from './stop-on-values.js';

/** Node evaluations (plus per-element work of builtins) one condition may spend. */
export const MAX_CONDITION_STEPS = 200_000;
/** Wall-clock limit of one evaluation. */
export const CONDITION_TIME_LIMIT_MS = 250;

export interface ConditionVariables {
  output: string;
  data: PyValue;
  exit_code: number;
  prev_output: string | null;
  changed: boolean;
}

export interface EvaluateOptions {
  maxSteps?: number;
  timeLimitMs?: number;
}

/** The condition's value (`ok`) or the error the model reads (`condition error: …` is added by the caller). */
export function evaluateCondition(
  node: ConditionNode,
  variables: ConditionVariables,
  options: EvaluateOptions = {},
): Result<PyValue> {
  const budget = new Budget(options.maxSteps ?? MAX_CONDITION_STEPS, options.timeLimitMs ?? CONDITION_TIME_LIMIT_MS);
  try {
    return ok(evaluate(node, variables, budget));
  } catch (error) {
    if (error instanceof ConditionError) return err(error.message);
    if (error instanceof RangeError) return err('the condition exceeded an internal limit');
    throw error;
  }
}

function evaluate(node: ConditionNode, vars: ConditionVariables, budget: Budget): PyValue {
  budget.charge();
  const next = (inner: ConditionNode): PyValue => evaluate(inner, vars, budget);
  switch (node.type) {
    case 'Literal':
      return node.value;
    case 'Identifier':
      return Object.hasOwn(vars, node.name) ? vars[node.name as keyof ConditionVariables] : builtin(node.name);
    case 'ArrayExpression':
      return node.elements.map(next);
    case 'UnaryExpression':
      return unary(node.operator, next(node.argument));
    case 'BinaryExpression':
      return binary(node, next, budget);
    case 'Subscript': {
      const value = next(node.object);
      if (typeof value === 'string') budget.charge(Math.ceil(value.length / 64));
      return pySubscript(value, next(node.index));
    }
    case 'Call':
      return callBuiltin(node.callee, node.arguments.map(next), budget);
    case 'MethodCall':
      return callMethod(next(node.object), node.method, node.arguments.map(next), budget);
  }
}

function unary(operator: string, value: PyValue): PyValue {
  if (operator === 'not') return !truthy(value);
  const number = asNumber(value);
  if (number === undefined) fail(`bad operand type for unary ${operator}: '${typeName(value)}'`);
  return operator === '-' ? -number : number;
}

function binary(
  node: Extract<ConditionNode, { type: 'BinaryExpression' }>,
  next: (inner: ConditionNode) => PyValue,
  budget: Budget,
): PyValue {
  if (node.operator === 'and') {
    const left = next(node.left);
    return truthy(left) ? next(node.right) : left;
  }
  if (node.operator === 'or') {
    const left = next(node.left);
    return truthy(left) ? left : next(node.right);
  }
  return applyOperator(node.operator, next(node.left), next(node.right), budget);
}

function applyOperator(operator: string, left: PyValue, right: PyValue, budget: Budget): PyValue {
  switch (operator) {
    case '==':
      return pyEquals(left, right, budget);
    case '!=':
      return !pyEquals(left, right, budget);
    case '<':
      return pyCompare(left, right, operator, budget) < 0;
    case '<=':
      return pyCompare(left, right, operator, budget) <= 0;
    case '>':
      return pyCompare(left, right, operator, budget) > 0;
    case '>=':
      return pyCompare(left, right, operator, budget) >= 0;
    case 'in':
      return pyContains(right, left, budget);
    case 'not in':
      return !pyContains(right, left, budget);
    case 'is':
      return isSame(left, right);
    case 'is not':
      return !isSame(left, right);
    default:
      return arithmetic(operator, left, right, budget);
  }
}

/** `is`: identity; for the immutable values a condition sees, the same type and value. */
function isSame(left: PyValue, right: PyValue): boolean {
  if (typeof left === 'object' || typeof right === 'object') return left === right;
  return typeName(left) === typeName(right) && left === right;
}

function arithmetic(operator: string, left: PyValue, right: PyValue, budget: Budget): PyValue {
  const sequence = sequenceOperation(operator, left, right, budget);
  if (sequence !== undefined) return sequence;
  const a = asNumber(left);
  const b = asNumber(right);
  if (a === undefined || b === undefined)
    fail(`unsupported operand types for ${operator}: '${typeName(left)}' and '${typeName(right)}'`);
  return finite(numeric(operator, a, b));
}

/** `+` and `*` on strings and lists; undefined when the operands are not sequences. */
function sequenceOperation(operator: string, left: PyValue, right: PyValue, budget: Budget): PyValue | undefined {
  const a = asNumber(left);
  const b = asNumber(right);
  if (operator === '+' && typeof left === 'string' && typeof right === 'string') {
    checkLength(left.length + right.length);
    return left + right;
  }
  if (operator === '+' && Array.isArray(left) && Array.isArray(right)) {
    checkLength(left.length + right.length);
    budget.charge(left.length + right.length);
    return [...left, ...right];
  }
  if (operator === '*' && (typeof left === 'string' || Array.isArray(left)) && b !== undefined)
    return repeat(left, b, budget);
  if (operator === '*' && (typeof right === 'string' || Array.isArray(right)) && a !== undefined)
    return repeat(right, a, budget);
  return undefined;
}

function numeric(operator: string, a: number, b: number): number {
  switch (operator) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      if (b === 0) fail('division by zero');
      return a / b;
    case '//':
      if (b === 0) fail('integer division or modulo by zero');
      return Math.floor(a / b);
    case '%':
      if (b === 0) fail('integer division or modulo by zero');
      return ((a % b) + b) % b;
    case '**':
      return a ** b;
    default:
      fail(`the operator '${operator}' is not supported`);
  }
}

/** Python raises OverflowError where JavaScript quietly gives Infinity. */
function finite(value: number): number {
  if (!Number.isFinite(value)) fail('numerical result out of range');
  return value;
}

function repeat(value: string | PyValue[], times: number, budget: Budget): PyValue {
  if (!Number.isInteger(times)) fail(`can't multiply sequence by non-int of type 'float'`);
  const count = Math.max(0, times);
  checkLength(value.length * count);
  budget.charge(Math.ceil((value.length * count) / 64));
  if (typeof value === 'string') return value.repeat(count);
  return Array.from({ length: count }, () => value).flat();
}
