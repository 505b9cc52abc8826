/**
 * Whether a standing grant covers one tool call (ADR 0046): its label glob matches the call's approval label, and its
 * argument glob (when it has one) matches the call's main argument. Globs are fnmatch, as tool policies.
 */
import type { ApprovalGrant } from '../../storage/grant-store.js';
import { globMatches } from './label-glob.js';

/** A call as the approval step sees it. */
export interface GrantedCall {
  label: string;
  name: string;
  args: Record<string, unknown> | undefined;
  /** Raw argument text as the model sent it. */
  arguments: string;
  /** The tool's primary argument (bash: `command`, read_file: `path`), when it has one. */
  primaryKey?: string | undefined;
}

/** Characters that chain or substitute shell commands: an argument holding one is matched only by a glob holding it. */
const CHAINING = [';', '&', '|', '`', '$(', '\n', '\r', '>', '<'];

/** The text an argument glob is matched against: the primary argument's value, else the arguments as JSON. */
export function grantArgumentText(call: GrantedCall): string {
  const value = call.primaryKey === undefined ? undefined : call.args?.[call.primaryKey];
  if (typeof value === 'string') return value;
  return call.args === undefined ? call.arguments : JSON.stringify(call.args);
}

function argumentsMatch(glob: string, argumentText: string): boolean {
  // `git *` must not approve `git status; rm -rf ~`: chaining never matches a glob that does not spell it out.
  if (CHAINING.some((token) => argumentText.includes(token) && !glob.includes(token))) return false;
  return globMatches(glob, argumentText);
}

/** Whether `grant` covers `call` (scope, expiry and revocation are the store's: it returns grants in force here). */
export function grantCovers(grant: Pick<ApprovalGrant, 'label' | 'argsGlob'>, call: GrantedCall): boolean {
  if (grant.label !== call.label && !globMatches(grant.label, call.label)) return false;
  if (grant.argsGlob === null || grant.argsGlob === '') return true;
  return argumentsMatch(grant.argsGlob, grantArgumentText(call));
}
