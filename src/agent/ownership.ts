/**
 * The one ownership rule of a workstream: its owner (the linked user who started it) or an admin may decide its
 * approvals and control it (`/cancel`, `/close`). Who may merely write in its thread is the platform's
 * `thread_participants` setting (gateway/router.ts `mayWrite`).
 */
export interface Person {
  userId: string;
  isAdmin: boolean;
}

export function mayControl(ownerUserId: string, person: Person): boolean {
  return person.isAdmin || person.userId === ownerUserId;
}
