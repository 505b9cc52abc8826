/** Admin operations on a user's data (ADR 0046): disable, enable, remove (rows, then workspace folders). */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { GatewayError } from '../../shared/errors.js';
import type { DataLifecycleStore, UserStore } from '../../storage/index.js';

/** A workstream id names a folder under workspace_dir only when it is a plain name (never `..` or a path). */
const FOLDER_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/** Removes the workstreams' folders under `workspaceDir`; a folder that is already gone counts as removed. */
export async function removeWorkspaceFolders(workspaceDir: string, wsIds: readonly string[]): Promise<number> {
  let removed = 0;
  for (const wsId of wsIds) {
    if (!FOLDER_NAME.test(wsId)) continue;
    await rm(path.join(workspaceDir, wsId), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

async function userNamed(users: UserStore, username: string): Promise<{ userId: string; username: string }> {
  const user = await users.getUserByUsername(username);
  if (user === undefined) throw new GatewayError('NOT_FOUND', `no user named ${username}`);
  return user;
}

export async function setUserDisabled(
  stores: { users: UserStore },
  username: string,
  disabled: boolean,
): Promise<{ username: string; disabled: boolean }> {
  const user = await userNamed(stores.users, username);
  await stores.users.setDisabled(user.userId, disabled);
  return { username: user.username, disabled };
}

export interface RemovedUserView {
  username: string;
  user_id: string;
  conversations: number;
  folders: number;
}

/** Removes the user's rows in one transaction, then their workspace folders. */
export async function removeUser(
  stores: { users: UserStore; lifecycle: DataLifecycleStore },
  username: string,
  workspaceDir: string,
): Promise<RemovedUserView> {
  const user = await userNamed(stores.users, username);
  const removed = await stores.lifecycle.removeUser(user.userId);
  if (removed === undefined) throw new GatewayError('NOT_FOUND', `no user named ${username}`);
  const folders = await removeWorkspaceFolders(workspaceDir, removed.wsIds);
  return { username: user.username, user_id: user.userId, conversations: removed.wsIds.length, folders };
}
