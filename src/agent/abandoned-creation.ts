/**
 * A new workstream whose thread could not be opened (ADR 0033): nothing of it is stored. The writes that waited for its
 * row end with this error, and it is not logged again: the gateway reports the thread's failure, once.
 */
export class AbandonedCreation extends Error {
  constructor(cause: unknown) {
    super('the thread of a new workstream was not opened', { cause });
    this.name = 'AbandonedCreation';
  }
}

export function isAbandonedCreation(error: unknown): boolean {
  return error instanceof AbandonedCreation;
}
